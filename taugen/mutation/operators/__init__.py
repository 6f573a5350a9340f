"""Built-in mutation operators, one module per group of defect kinds (importing registers them).

* :mod:`.policy` — K1 policy violations, K3 arithmetic, K9 several compliant end states, K17 opposite gold;
* :mod:`.grounding` — K2 tool preconditions, K4 assertions, K5 DB contradictions, K14 executability,
  K15 superlatives;
* :mod:`.scenario` — K6 missing information, K7 ambiguity, K8 contradictions, K10 no fallback,
  K11 omitted writes, K16 unknown tool or field names;
* :mod:`.records` — K12 grader, K13 document contradictions, K18 leaks, K19 duplicates, K20 chronology.
"""

from taugen.mutation.operators import grounding, policy, records, scenario  # noqa: F401
