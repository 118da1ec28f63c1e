// Package repo runs fdl-formats' job on a whole FDL repository: Plan builds
// the version x declared-format matrix, Backfill writes every missing
// catalog (verify, convert, prove, publish), and Check verifies every
// published catalog and the repository's rules.
//
// The repository is reached through a store.Store; only catalogs/<format>.duckdb
// files are ever created under versions/, through store.Create, which never
// replaces an object. Work files live in a temporary folder outside the
// repository. Catalogs are only ever opened from private copies there (the
// frozen one hashed as it is copied), never in place, so no write-ahead log
// or later change beside them is read.
package repo
