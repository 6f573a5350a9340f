"""Built-in generic mutation operators: they name no domain's problems, tools, tables or facts, so they
apply to every domain (importing registers them). A domain's own operators live in its folder
(``taugen/domains/<domain>/mutations``) and come with its bundles only (:func:`taugen.mutation.model.operators`).

* :mod:`.policy` — problem-family edits: K1 policy violations (a declined request submitted, a window's
  edge crossed, steps out of order, the wrong team) and K3 arithmetic (another fee row, a quote one unit off);
* :mod:`.records` — K12 grader, K13 document contradictions, K18 leaks, K19 duplicates, K20 chronology.

The edits the operators (generic and a domain's) share are in :mod:`taugen.mutation.edits`.
"""

from taugen.mutation.operators import policy, records  # noqa: F401
