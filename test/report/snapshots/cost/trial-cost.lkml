Cost model (l1i=32k,8way,64 predictor=2bit; counts of the emulated
  execution and a model, not times), B vs A, exact changes:
  sched_getattr: taken branches +1.00/call (exact, 4 boots alike).
  getppid: I-cache line fetches -1.00/call (boots vary: 95 % CI
    -1.0005 to -0.9995).
