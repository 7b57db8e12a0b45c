// generated/messages.ts for generate.mjs: the lists of message types and values that schemas/ defines,
// so that no hand-kept list or union can drift from the schemas (decisions 0023 and 0029).

/**
 * The message catalogues generated from a folder of message schemas each (the `type` const of each).
 * `stream: true` keeps the schemas that carry a `streamVersion`: the events of a decider's stream.
 */
const CATALOGUES = [
  { kind: 'events', name: 'CustomerEvent', what: 'customer event' },
  { kind: 'commands', name: 'CustomerCommand', what: 'customer command' },
  { kind: 'operations', name: 'OperationEvent', what: 'operation stream event', stream: true },
];

/** Value lists: the `enum` of a schema definition, typed by the type generated from it. */
const VALUE_LISTS = [
  { name: 'ScreeningLists', type: 'ScreeningList', module: 'risk/risk-matrix.v1', def: 'screeningList' },
  { name: 'EntityTypes', type: 'EntityType', module: 'http/customer-parts.v1', def: 'EntityType' },
];

/**
 * messages.ts: per catalogue, the list of its message types and the union of its generated message
 * types (`Generated<Name>`); per value list, the values of its enum in schema order.
 * @param documents every schema: { file, module, schema }
 * @param helpers { fail(message), toTypeName(title), where(file) }
 */
export function catalogue(documents, { fail, toTypeName, where }) {
  const imports = [];
  const blocks = [];
  for (const { kind, name, what, stream } of CATALOGUES) {
    const folder = `schemas/${kind}/`;
    const members = documents
      .filter(({ module }) => module.startsWith(`${kind}/`))
      .filter(
        ({ schema }) =>
          !stream ||
          (typeof schema.properties?.type?.const === 'string' &&
            schema.properties.streamVersion !== undefined),
      )
      .map(({ file, module, schema }) => {
        const type = schema.properties?.type?.const;
        if (typeof type !== 'string') fail(`${where(file)} has no properties.type.const`);
        return { module, type, typeName: toTypeName(schema.title) };
      });
    if (members.length === 0) fail(`no message schema under ${folder}`);
    for (const { module, typeName } of members)
      imports.push(`import type { ${typeName} } from './${module}';`);
    const which = stream
      ? `each schema under ${folder} that carries a streamVersion`
      : `each schema under ${folder}`;
    blocks.push(
      `/** The type of every ${what}: the \`type\` const of ${which}. */\n` +
        `export const ${name}Types = [${members.map(({ type }) => `'${type}'`).join(', ')}] as const;\n\n` +
        `/** Every ${what} exactly as its schema under ${folder} types it. */\n` +
        `export type Generated${name} = ${members.map(({ typeName }) => typeName).join(' | ')};\n`,
    );
  }
  for (const { name, type, module, def } of VALUE_LISTS) {
    const document = documents.find((candidate) => candidate.module === module);
    const values = document?.schema.$defs?.[def]?.enum;
    if (!Array.isArray(values) || !values.every((value) => typeof value === 'string'))
      fail(`schemas/${module}.schema.json has no string enum at $defs.${def}`);
    imports.push(`import type { ${type} } from './${module}';`);
    blocks.push(
      `/** Every ${type}, in schema order: the enum of $defs.${def} in schemas/${module}.schema.json. */\n` +
        `export const ${name} = [${values.map((value) => `'${value}'`).join(', ')}] as const satisfies readonly ${type}[];\n`,
    );
  }
  return `${imports.join('\n')}\n\n${blocks.join('\n')}`;
}
