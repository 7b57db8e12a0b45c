import express, { type Express } from 'express';
import { ResourceNotFoundError, errorMiddleware } from '@crs/http';
import type { Health, Logger, Registry } from '@crs/runtime';
import { screeningRoutes, type ScreeningRoutesDeps } from './screening-routes';

export interface HttpAppDeps {
  health: Health;
  metrics: Registry;
  logger: Logger;
  /** The screening API; without a token verifier only health and metrics are served. */
  routes: ScreeningRoutesDeps | undefined;
}

/** The health port's HTTP: liveness, readiness, metrics, and the screening API behind its token check. */
export function buildHttpApp(deps: HttpAppDeps): Express {
  const { health, metrics, logger, routes } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.get('/health/live', (_req, res) => {
    res.status(health.isLive() ? 200 : 503).json({ status: health.isLive() ? 'UP' : 'DOWN' });
  });
  app.get('/health/ready', async (_req, res) => {
    const r = await health.readiness();
    res.status(r.ready ? 200 : 503).json({ status: r.ready ? 'UP' : 'DOWN', checks: r.checks });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.metrics());
  });
  app.use(express.json({ limit: '64kb', type: 'application/json' }));
  if (routes) app.use(screeningRoutes(routes));
  app.use((_req, _res, next) => next(new ResourceNotFoundError()));
  app.use(errorMiddleware(logger));
  return app;
}
