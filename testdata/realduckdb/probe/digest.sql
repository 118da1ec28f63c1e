SELECT CAST(count(*) AS VARCHAR), coalesce(md5(string_agg(x, chr(10) ORDER BY x)), '') FROM (SELECT CAST(t AS VARCHAR) AS x FROM {table} t)
