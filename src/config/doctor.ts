import type { EnvReader } from './env';

export interface DoctorSettings {
  /** An experience `npm run doctor` renders once to check the recommender; unset skips that check. */
  doctorExperienceId?: string;
}

export function readDoctor(reader: EnvReader): DoctorSettings {
  const id = reader.text('DOCTOR_EXPERIENCE_ID');
  return id === undefined ? {} : { doctorExperienceId: id };
}
