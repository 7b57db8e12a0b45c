/* eslint-disable @typescript-eslint/no-require-imports --
 * The bundled JSON lives in matrices/ and data/, beside src/ and dist/, so the same relative require
 * resolves from the sources (jest) and from the build; tsc's rootDir never sees these files. */
import type { CountryRiskTable, RiskMatrix } from './risk-matrix';
import { RiskMatrixInvalidError } from './risk-matrix-invalid-error';
import { validateMatrix } from './validate-matrix';

export type CountryRiskExample = Pick<CountryRiskTable, 'source' | 'asOf' | 'note' | 'lists'>;

function bundledDocuments(): Array<{ file: string; doc: unknown }> {
  return [
    { file: 'matrices/demo-persons.v1.json', doc: require('../matrices/demo-persons.v1.json') },
    { file: 'matrices/demo-organizations.v1.json', doc: require('../matrices/demo-organizations.v1.json') },
  ];
}

/**
 * The example matrices shipped with the package (business unit DEMO), validated. They are examples of
 * the format, not advice on how to rate risk. Each call returns fresh copies.
 *
 * @throws RiskMatrixInvalidError when a bundled file does not validate (a packaging bug)
 */
export function loadBundledMatrices(): RiskMatrix[] {
  return bundledDocuments().map(({ file, doc }) => {
    const result = validateMatrix(structuredClone(doc));
    if (!result.ok) throw new RiskMatrixInvalidError(file, result.errors);
    return result.matrix;
  });
}

/** The example country-risk table (FATF lists after the June 2025 plenary, EU high-risk third countries). */
export function loadExampleCountryRisk(): CountryRiskExample {
  return structuredClone(require('../data/country-risk.example.json') as CountryRiskExample);
}
