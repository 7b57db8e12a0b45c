// `@crs/privacy/rules`: the pure part of the package, for domain code (STYLE.md: the domain imports no
// infrastructure, not even through a package's index). No MongoDB, no Node built-ins, no key store:
// the retention rule, the wire form of encrypted values, the personal-field lists and stream ids.
// The package's index (`@crs/privacy`) re-exports all of it beside the key store and the cipher.
export * from './retention';
export * from './encrypted-value';
export * from './personal-fields';
export * from './key-id';
