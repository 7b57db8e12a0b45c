import type { Collection, Db } from 'mongodb';
import { OwnedCollections, insertNew } from '@crs/store';
import type { ClassifierDoc, ClassifierName } from './classifier-names';

/**
 * Classifiers per business unit, cached in memory for a short time: every write request checks its
 * classifier-backed fields against them, so they must not cost a database round trip each time.
 */
export class ClassifierStore {
  private readonly collection: Collection<ClassifierDoc>;
  private readonly cache = new Map<string, { at: number; codes: Map<ClassifierName, Set<string>> }>();

  constructor(
    db: Db,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.collection = db.collection<ClassifierDoc>(OwnedCollections.classifiers);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ businessUnit: 1, classifier: 1, code: 1 });
  }

  /** Inserts the entries that are missing; existing entries (possibly edited) are kept. */
  async seed(docs: ClassifierDoc[]): Promise<number> {
    if (docs.length === 0) return 0;
    const existing = new Set(
      (
        await this.collection
          .find({ businessUnit: docs[0]!.businessUnit }, { projection: { _id: 1 } })
          .toArray()
      ).map((d) => d._id),
    );
    const missing = docs.filter((d) => !existing.has(d._id));
    // E11000: another ingress seeded the entry meanwhile; any other failure is thrown (insertNew).
    await insertNew(this.collection, missing);
    this.cache.delete(docs[0]!.businessUnit);
    return missing.length;
  }

  async list(businessUnit: string, classifier: ClassifierName): Promise<ClassifierDoc[]> {
    return this.collection.find({ businessUnit, classifier }).sort({ code: 1 }).toArray();
  }

  /**
   * Whether this installation knows the business unit: a business unit exists here through its
   * classifiers (docs/api.md), so one without any classifier entry is unknown.
   */
  async knows(businessUnit: string): Promise<boolean> {
    return (await this.codes(businessUnit)).size > 0;
  }

  async codes(businessUnit: string): Promise<Map<ClassifierName, Set<string>>> {
    const hit = this.cache.get(businessUnit);
    if (hit && this.now() - hit.at < this.cacheMs) return hit.codes;
    const codes = new Map<ClassifierName, Set<string>>();
    const docs = await this.collection
      .find({ businessUnit }, { projection: { classifier: 1, code: 1 } })
      .toArray();
    for (const d of docs) {
      const set = codes.get(d.classifier) ?? new Set<string>();
      set.add(d.code);
      codes.set(d.classifier, set);
    }
    this.cache.set(businessUnit, { at: this.now(), codes });
    return codes;
  }
}
