//! Unit tests: hand-built token streams and the assembler's round trip.
