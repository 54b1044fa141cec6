"""What SpecGuard writes and reads back: results, bundles, verify, batch runs, reports, schemas."""
