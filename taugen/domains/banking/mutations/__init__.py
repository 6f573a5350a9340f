"""Banking's own mutation operators: defects that only a bank's problems, tools, tables and facts can carry.

:func:`taugen.mutation.model.operators` imports this package for a bundle whose ``environment`` is
``taugen.domains.banking`` (importing it registers every operator below); the generic operators
(:mod:`taugen.mutation.operators`) apply to every domain. The contract is :mod:`taugen.mutation.model`'s;
the edits the operators share are :mod:`taugen.mutation.edits`'.

* :mod:`.policy` — K1 policy violations, K3 arithmetic, K9 several compliant end states, K17 opposite gold;
* :mod:`.grounding` — K2 tool preconditions, K4 assertions, K5 DB contradictions, K14 executability,
  K15 superlatives;
* :mod:`.scenario` — K6 missing information, K7 ambiguity, K8 contradictions, K10 no fallback,
  K11 omitted writes, K16 unknown tool or field names;
* :mod:`.records` — K12 grading, K18 leaks, K19 duplicates, K20 chronology.
"""

from taugen.domains.banking.mutations import grounding, policy, records, scenario  # noqa: F401
