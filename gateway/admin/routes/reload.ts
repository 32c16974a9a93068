/**
 * POST /admin/reload: re-read the config file and apply it without a restart, as SIGHUP does (docs/operations.md,
 * "Reload"). 200 when applied; 422 config_invalid with every error when the file fails validation or changes a
 * setting that needs a restart (the running config stays).
 */
import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { route } from '../http';
import { AdminProblem } from '../problem';

/** Register POST /reload (only when the process can reload: `deps.reload`). */
export function reloadRoutes(router: Router, deps: RouteDeps): void {
  const reload = deps.reload;
  if (!reload) return;
  route(router, '/reload', {
    post: async (_req, res) => {
      const outcome = await reload();
      if (!outcome.applied) {
        throw new AdminProblem(
          'config_invalid',
          `the config file was not applied (${outcome.errors.length} error(s)); the running config stays`,
          undefined,
          outcome.errors,
        );
      }
      deps.logger.warn('config reloaded (admin API)');
      res.json({ applied: true });
    },
  });
}
