import { dirname } from 'node:path';
import express, { Router } from 'express';

/**
 * Interactive API documentation at /docs: Swagger UI (swagger-ui-dist, its static build) reading
 * /openapi.json. Every asset comes from the installed package, never a CDN, and the page's
 * Content-Security-Policy lets it load scripts, styles and data from this origin only, so "Try it
 * out" can call the API here and nowhere else. The page is public like /openapi.json; the API
 * behind it keeps its bearer-token auth (the "Authorize" button takes a token; Swagger UI keeps it
 * in the page's memory only). Also serves /asyncapi.json, the AsyncAPI document of the topics.
 */

/** Where swagger-ui-dist's files are (its package's directory). */
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

const ASSETS = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js', '/favicon-32x32.png']);

// Swagger UI sets inline styles (style-src 'unsafe-inline'); it needs no inline script and no eval.
// The validator badge is off (validatorUrl: null): it would send the document to validator.swagger.io.
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const page = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const init = (specUrl: string) => `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(specUrl)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  displayRequestDuration: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

export function apiDocsRoutes(opts: { openapiUrl: string; asyncapi: () => unknown; title: string }): Router {
  const router = Router();
  const html = page(opts.title);
  const script = init(opts.openapiUrl);
  const docsHeaders = (res: express.Response) => {
    res.setHeader('content-security-policy', DOCS_CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
  };
  router.get('/docs', (_req, res) => {
    docsHeaders(res);
    res.type('html').send(html);
  });
  router.get('/docs/init.js', (_req, res) => {
    docsHeaders(res);
    res.type('application/javascript').send(script);
  });
  // Only the files the page uses: the package also holds a demo page that points at the petstore.
  const assets = express.static(SWAGGER_UI_DIR, {
    index: false,
    maxAge: '1d',
    setHeaders: (res) => docsHeaders(res as express.Response),
  });
  router.use('/docs/assets', (req, res, next) => {
    if (ASSETS.has(req.path)) assets(req, res, next);
    else next();
  });
  let asyncapi: unknown;
  router.get('/asyncapi.json', (_req, res) => {
    asyncapi ??= opts.asyncapi();
    res.json(asyncapi);
  });
  return router;
}
