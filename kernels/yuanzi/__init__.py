"""原子 (yuanzi) kernel: encoding, rules, strategies and the parallel driver."""
