"""What happens to assertions after they are written: belief and valid time, retraction, erasure,
derivation, decisions, provenance traces, conflicts, and reads for people (browse)."""
