import type { EmulatorContext } from '../context';
import { newExperienceId } from '../data';
import { errorReply, failureReply, json, noContent, type Reply } from '../http/reply';
import type { Router } from '../http/router';
import type { Experience } from '../store';
import { parseNewExperience, patchExperience } from '../validation/experience';
import { withApiUser } from './apiUser';

/** `/api/experiences` CRUD (docs/upstream-contract.md §4), on the user's reporting budget. */
export function addExperienceRoutes(router: Router, context: EmulatorContext): void {
  const { experiences } = context.store;

  router.add(
    'GET',
    '/api/experiences',
    withApiUser(context, 'reporting', () => json(200, [...experiences.values()].map(experienceBody))),
  );

  router.add(
    'POST',
    '/api/experiences',
    withApiUser(context, 'reporting', async (request) => {
      const body = await request.json();
      if (!body.ok) return failureReply(body);
      const fields = parseNewExperience(body.value);
      if (!fields.ok) return failureReply(fields);
      const experience: Experience = { id: uniqueId(context), ...fields.value };
      experiences.set(experience.id, experience);
      return json(201, experienceBody(experience));
    }),
  );

  router.add(
    'GET',
    '/api/experiences/:id',
    withApiUser(context, 'reporting', (request) => {
      const experience = experiences.get(request.params.id);
      return experience ? json(200, experienceBody(experience)) : notFound();
    }),
  );

  router.add(
    'PATCH',
    '/api/experiences/:id',
    withApiUser(context, 'reporting', async (request) => {
      const existing = experiences.get(request.params.id);
      if (!existing) return notFound();
      const body = await request.json();
      if (!body.ok) return failureReply(body);
      const patched = patchExperience(existing, body.value);
      if (!patched.ok) return failureReply(patched);
      experiences.set(patched.value.id, patched.value);
      return json(200, experienceBody(patched.value));
    }),
  );

  router.add(
    'DELETE',
    '/api/experiences/:id',
    withApiUser(context, 'reporting', (request) => (experiences.delete(request.params.id) ? noContent() : notFound())),
  );
}

function uniqueId(context: EmulatorContext): string {
  let id = newExperienceId(context.randomBytes);
  while (context.store.experiences.has(id)) id = newExperienceId(context.randomBytes);
  return id;
}

/** A copy with the contract's field order, so later mutations never alias the store. */
function experienceBody(experience: Experience): Experience {
  const { id, name, domain, rankingProfile, size, timeWindowDays, sections } = experience;
  const copy: Experience['sections'] = {};
  if (sections.include) copy.include = [...sections.include];
  if (sections.exclude) copy.exclude = [...sections.exclude];
  return { id, name, domain, rankingProfile, size, timeWindowDays, sections: copy };
}

function notFound(): Reply {
  return errorReply(404, 'Experience not found');
}
