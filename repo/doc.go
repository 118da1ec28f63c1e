// Package repo runs fdl-formats' job on a whole FDL repository: Plan builds
// the version x declared-format matrix, Backfill writes every missing
// catalog (verify, convert, prove, publish), and Check verifies every
// published catalog and the repository's rules.
//
// The repository is reached through a store.Store; only catalogs/<format>.duckdb
// files are ever created under versions/, through store.Create, which never
// replaces an object. Work files live in a temporary folder outside the
// repository.
package repo
