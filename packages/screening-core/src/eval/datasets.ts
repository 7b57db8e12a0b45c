import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';

/** A row of the yente candidate-generation fixtures. */
export interface PersonRow {
  full_name: string;
  date_of_birth: string;
  nationality: string;
}

export function readCsv<T>(file: string): T[] {
  return parse(readFileSync(file), {
    columns: true,
    skip_empty_lines: true,
    relax_column_count: true,
    comment: '#',
  }) as T[];
}

export function readPersons(dataDir: string, name: string): PersonRow[] {
  return readCsv<PersonRow>(path.join(dataDir, 'matching', 'yente', name));
}

export function readLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}
