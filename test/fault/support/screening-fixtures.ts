import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ScreeningList } from '@crs/contracts';
import { ROOT, eventually, type TestCluster } from '@crs/testing';

/** A customer name the load screens, with the outcome it must have on every list it asks for. */
export interface ScreeningProfile {
  id: string;
  firstName: string;
  lastName: string;
  /** Sent as citizenshipCountry (and checked with it): the clean names must stay clean with a country qualifier. */
  country?: string;
  lists: ScreeningList[];
  /** The one list the name is a known hit on, with the entry that must be among the hits; every other requested list must not match. */
  hit?: { list: ScreeningList; source: string; entryId: string };
}

const SHARED_DATA = process.env.CRS_SHARED_DATA ?? resolve(ROOT, '..', 'shared', 'data');

/** The first simple OFAC SDN individual ("LAST, First", one word each): the customer record carries exactly the listed name. */
function sdnIndividual(): { entryId: string; firstName: string; lastName: string } {
  const text = readFileSync(join(SHARED_DATA, 'lists', 'sdn.csv'), 'latin1');
  for (const line of text.split(/\r?\n/)) {
    const m = /^(\d+),"([A-Z]{4,}), ([A-Z][a-z]{3,})","individual",/.exec(line);
    if (m) return { entryId: m[1]!, lastName: m[2]!, firstName: m[3]! };
  }
  throw new Error('no simple SDN individual in sdn.csv');
}

/** The first US Congress member (PEP list) named "First [M.] Last". */
function congressMember(): { entryId: string; firstName: string; lastName: string } {
  const text = readFileSync(join(SHARED_DATA, 'lists', 'us_congress_senzing.json'), 'utf8');
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const rec = JSON.parse(line) as { RECORD_ID: string; NAMES?: { NAME_FULL?: string }[] };
    const m = /^([A-Z][a-z]{3,}) (?:[A-Z]\. )?([A-Z][a-z]{3,})$/.exec(rec.NAMES?.[0]?.NAME_FULL ?? '');
    if (m) return { entryId: rec.RECORD_ID, firstName: m[1]!, lastName: m[2]! };
  }
  throw new Error('no simple US Congress name in us_congress_senzing.json');
}

/** The first two-word individual of the bundled (fictional) adverse-media demo list. */
function adverseMediaPerson(): { entryId: string; firstName: string; lastName: string } {
  const entries = JSON.parse(
    readFileSync(join(ROOT, 'packages/screening-core/data/adverse-media-demo.json'), 'utf8'),
  ) as {
    id: string;
    name: string;
    entityType: string;
  }[];
  for (const e of entries) {
    const m = /^([A-Z][a-z]{3,}) ([A-Z][a-z]{3,})$/.exec(e.name);
    if (e.entityType === 'INDIVIDUAL' && m) return { entryId: e.id, firstName: m[1]!, lastName: m[2]! };
  }
  throw new Error('no two-word individual in adverse-media-demo.json');
}

/** The BLACK-listed customer every INTERNAL_LIST hit of the load points at (imported once per run). */
export interface BlackCustomer {
  customerExtId: string;
  firstName: string;
  lastName: string;
}

export function screeningProfiles(black: BlackCustomer): {
  hits: ScreeningProfile[];
  clean: ScreeningProfile[];
} {
  const sdn = sdnIndividual();
  const pep = congressMember();
  const media = adverseMediaPerson();
  return {
    // One known hit per list; each also asks for one list it must not match.
    hits: [
      {
        id: 'hit-sanctions',
        firstName: sdn.firstName,
        lastName: sdn.lastName,
        lists: ['SANCTIONS', 'PEP'],
        hit: { list: 'SANCTIONS', source: 'OFAC_SDN', entryId: sdn.entryId },
      },
      {
        id: 'hit-pep',
        firstName: pep.firstName,
        lastName: pep.lastName,
        lists: ['PEP', 'ADVERSE_MEDIA'],
        hit: { list: 'PEP', source: 'US_CONGRESS_PEP', entryId: pep.entryId },
      },
      {
        id: 'hit-adverse-media',
        firstName: media.firstName,
        lastName: media.lastName,
        lists: ['ADVERSE_MEDIA', 'SANCTIONS'],
        hit: { list: 'ADVERSE_MEDIA', source: 'ADVERSE_MEDIA_DEMO', entryId: media.entryId },
      },
      {
        id: 'hit-internal',
        firstName: black.firstName,
        lastName: black.lastName,
        lists: ['INTERNAL_LIST', 'PEP'],
        hit: { list: 'INTERNAL_LIST', source: 'INTERNAL_CUSTOMERS', entryId: `DEMO:${black.customerExtId}` },
      },
    ],
    // Invented names that match nothing; between them they ask for every list.
    clean: [
      {
        id: 'clean-1',
        firstName: 'Quenby',
        lastName: 'Marrowfield',
        country: 'LT',
        lists: ['SANCTIONS', 'INTERNAL_LIST'],
      },
      {
        id: 'clean-2',
        firstName: 'Tobiah',
        lastName: 'Wrenlowe',
        country: 'LT',
        lists: ['PEP', 'ADVERSE_MEDIA'],
      },
    ],
  };
}

interface SearchHit {
  list: string;
  source: string;
  entryId: string;
}

/**
 * The fixture's own check, before any fault: through the screening service's search API, every hit
 * name finds its entry on its list and nothing on its other list, every clean name finds nothing. So a
 * wrong result after the faults is the system's doing, not a name that happens to match.
 */
export async function checkScreeningProfiles(
  cluster: TestCluster,
  token: string,
  profiles: ScreeningProfile[],
): Promise<void> {
  const base = `http://127.0.0.1:${cluster.portOf('screening')}/api/screening/search`;
  const search = async (p: ScreeningProfile, list: ScreeningList): Promise<SearchHit[]> => {
    const q = new URLSearchParams({
      name: `${p.firstName} ${p.lastName}`,
      entityType: 'INDIVIDUAL',
      lists: list,
      businessUnit: 'DEMO',
    });
    if (p.country) q.set('country', p.country);
    const res = await fetch(`${base}?${q}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`screening search answered ${res.status}`);
    return ((await res.json()) as { hits: SearchHit[] }).hits;
  };
  for (const p of profiles) {
    for (const list of p.lists) {
      if (p.hit?.list === list) {
        // The BLACK customer reaches the screening service's internal list shortly after its import.
        await eventually(
          async () =>
            (await search(p, list)).some((h) => h.source === p.hit!.source && h.entryId === p.hit!.entryId),
          60000,
          `fixture ${p.id}: ${p.firstName} ${p.lastName} found on ${list} as ${p.hit.source} ${p.hit.entryId}`,
        );
      } else {
        const hits = await search(p, list);
        if (hits.length > 0)
          throw new Error(
            `fixture ${p.id}: ${p.firstName} ${p.lastName} unexpectedly matches ${list}: ${JSON.stringify(hits.slice(0, 3))}`,
          );
      }
    }
  }
}
