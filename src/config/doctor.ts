import type { EnvReader } from './env';

export interface DoctorSettings {
  /** An experience `npm run doctor` renders once to check the recommender; unset skips that check. */
  doctorExperienceId?: string;
  /** The domain that render.json check asks for; default: the signed-in user's site. */
  doctorExperienceDomain?: string;
}

export function readDoctor(reader: EnvReader): DoctorSettings {
  const id = reader.text('DOCTOR_EXPERIENCE_ID');
  const domain = reader.text('DOCTOR_EXPERIENCE_DOMAIN');
  return { ...(id === undefined ? {} : { doctorExperienceId: id }), ...(domain === undefined ? {} : { doctorExperienceDomain: domain }) };
}
