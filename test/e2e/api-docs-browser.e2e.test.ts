import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { Parser, DiagnosticSeverity } from '@asyncapi/parser';
import { TestCluster, localToken } from '@crs/testing';

/**
 * /docs in a real browser: Debian's chromium (installed by deploy/local/ensure-chromium.sh, which
 * `npm test` runs first) driven by playwright-core, which downloads no browser of its own. The page
 * loads the API description, takes a bearer token through "Authorize", and "Try it out" calls the
 * API and shows its answer; every request the page makes goes to the ingress itself.
 */

function chromiumPath(): string {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist`);
    return configured;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      "Debian's chromium is not installed: run `bash deploy/local/ensure-chromium.sh` (npm test does)",
    );
  }
}

describe('API docs (/docs) in headless Chromium', () => {
  const cluster = new TestCluster('e2e-docs');
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    await cluster.start(['ingress']);
    token = await localToken({ businessUnits: ['DEMO'], scopes: ['classifiers:read'] });
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-default-apps',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await cluster.stop(['ingress']);
  });

  it('authorizes with a bearer token, tries an operation and shows its answer, loading nothing from elsewhere', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const apiCalls: Array<{ url: string; authorization?: string }> = [];
    const cspViolations: string[] = [];
    page.on('request', (r) => {
      requested.push(r.url());
      if (r.url().includes('/classifier/'))
        apiCalls.push({ url: r.url(), authorization: r.headers().authorization });
    });
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });

    const docs = await page.goto(`${cluster.ingressUrl}/docs`);
    expect(docs?.status()).toBe(200);
    expect(docs?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.swagger-ui .info .title').waitFor();
    expect(await page.locator('.swagger-ui .info .title').innerText()).toContain('Customer Risk');

    await page.locator('button.authorize').first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').first().fill(token);
    await dialog.locator('.auth-btn-wrapper button.authorize').click();
    await dialog.locator('.auth-btn-wrapper button.btn-done').click();

    const operation = page.locator('#operations-classifiers-getClassifierRiskManagementCategory');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();

    const response = operation.locator('.live-responses-table .response').first();
    await response.waitFor();
    expect((await response.locator('.response-col_status').innerText()).trim()).toBe('200');
    const body = await response.locator('.response-col_description pre').first().innerText();
    expect(JSON.parse(body)).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: expect.any(String) })]),
    );

    expect(apiCalls).toEqual([
      { url: `${cluster.ingressUrl}/classifier/riskManagementCategory`, authorization: `Bearer ${token}` },
    ]);
    expect(requested.filter((u) => !u.startsWith(`${cluster.ingressUrl}/`))).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('serves /asyncapi.json for the namespace, valid for the AsyncAPI parser', async () => {
    const res = await cluster.fetch('/asyncapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { channels: Record<string, { address: string }> };
    expect(doc.channels.customerEvents?.address).toMatch(/crs\.customer\.events\.v1$/);
    const { diagnostics } = await new Parser().parse(doc as never);
    expect(diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error)).toEqual([]);
  });
});
