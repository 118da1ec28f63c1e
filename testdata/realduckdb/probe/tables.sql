SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'f' ORDER BY schema_name, table_name
