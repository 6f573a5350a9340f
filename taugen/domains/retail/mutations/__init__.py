"""The retail domain's own mutation operators: defects only a retail desk's problems, tools and facts carry.

:func:`taugen.mutation.model.operators` imports this package for a bundle whose ``environment`` is
``taugen.domains.retail`` (importing it registers every operator below); the generic operators apply to
every domain.

* :mod:`.policy` — K1 writes the policy forbids, K17 opposite gold for equal rule inputs;
* :mod:`.grounding` — K2 tool preconditions, K5 arguments that contradict the records, K14 ids no read
  returns;
* :mod:`.scenario` — K6 missing information, K10 no fallback, K11 omitted writes, K16 unknown tool names;
* :mod:`.grading` — K4 graded statements that disagree with the gold, K8 contradictions.

Retail's facts compute no amount (the tools price every change from the catalogue), so no K3 operator
exists here: an amount the facts compute differently is not a defect a retail task can carry.
"""

from taugen.domains.retail.mutations import grading, grounding, policy, scenario  # noqa: F401
