"""ATLAS kernel: encoding, rules, strategies and the parallel driver."""
