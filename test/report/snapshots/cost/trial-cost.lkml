Cost model (l1i=32k,8way,64 predictor=2bit; counts of the emulated
  execution and a model, not times), B vs A, exact changes:
  sched_getattr: taken branches/call 60.00 -> 61.00 (+1.00).
