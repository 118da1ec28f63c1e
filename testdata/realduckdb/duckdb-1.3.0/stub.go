package main

/*
#include <stdlib.h>

// The libduckdb_static.a of duckdb-go-bindings/linux-amd64 v0.1.10 was
// compiled by a newer GCC whose libstdc++ exports __cxa_call_terminate
// (called when an exception leaves a noexcept function); Debian 12's GCC 12
// lacks it. What it does there: terminate, which aborts.
void __cxa_call_terminate(void *exception) { abort(); }
*/
import "C"
