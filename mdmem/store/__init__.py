"""The vault on disk: atomic writes, transactions, the journal, the lock and the caches."""
