import { resolve } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const launcher = require(resolve(__dirname, '../../../deploy/local/services.cjs')) as {
  SERVICES: Record<string, unknown>;
  portOf(name: string, namespace?: string): number;
};

/** What fetch says about a port nothing listens on: a refused connection, or its own refusal ("bad port"). */
async function fetchRefusal(port: number): Promise<string> {
  try {
    await fetch(`http://127.0.0.1:${port}/`);
    return 'answered';
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? String(err);
  }
}

describe('namespace ports of the local launcher', () => {
  it('never hands a namespace a port that fetch refuses to use', async () => {
    // "nct" hashes to the slot whose ingress port was 10080, which fetch blocks ("bad port"): an e2e run
    // and a bench run whose random namespace landed there failed with "fetch failed".
    expect(launcher.portOf('ingress', 'nct')).not.toBe(10080);
    expect(await fetchRefusal(launcher.portOf('ingress', 'nct'))).not.toBe('bad port');
    expect(await fetchRefusal(10080)).toBe('bad port'); // the check above can tell

    const ports = new Set<number>();
    for (let i = 0; i < 4000; i += 1)
      for (const name of Object.keys(launcher.SERVICES)) ports.add(launcher.portOf(name, `ns-${i}`));
    const blocked = [6000, 6566, 6665, 6666, 6667, 6668, 6669, 6697, 10080];
    expect([...ports].filter((p) => blocked.includes(p))).toEqual([]);
  });
});
