"""scripts/fix_history.py: the published τ³ task fixes (installed tau2 tasks vs tau2-bench fixtures) and
how many of them ``lint-tasks`` flags on the old version.

The data checks are deterministic and take ~2 s. The lint check lints only the OLD tasks (about 20 s with
gold replay; recall and precision need nothing else); it pins what the validators find today, so a change
in the K-checks that moves these numbers must update them on purpose.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import taugen  # noqa: F401  (sets LITELLM_LOCAL_MODEL_COST_MAP before tau2 imports litellm)
from script_module import load_script

pytest.importorskip("tau2")

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures" / "tau2"
if not all((FIXTURES / d / "tasks.json").is_file() for d in ("airline", "retail")):
    pytest.skip("tau2 fixtures missing (../shared/fixtures/tau2)", allow_module_level=True)

pytestmark = pytest.mark.tau2


fh = load_script("fix_history")


@pytest.fixture(scope="module")
def changes():
    return {d: {c.task_id: c for c in fh.compare_domain(d, FIXTURES)} for d in fh.DOMAINS}


def _ids(items, pred):
    return sorted((c.task_id for c in items.values() if pred(c)), key=int)


def test_default_reward_basis_is_db_and_communicate():
    assert fh.default_reward_basis() == frozenset({"DB", "COMMUNICATE"})


def test_fixed_counts_match_the_release(changes):
    # the τ³ release notes: 27 airline and ~26 retail tasks fixed
    assert len(changes["airline"]) == 50 and len(changes["retail"]) == 114
    assert _ids(changes["airline"], lambda c: c.fixed) == [
        "2", "5", "7", "9", "12", "13", "14", "15", "16", "18", "19", "21", "23", "25", "27", "29", "30", "32",
        "33", "34", "35", "37", "38", "42", "43", "44", "45"]
    assert _ids(changes["retail"], lambda c: c.fixed) == [
        "0", "1", "2", "3", "4", "10", "12", "13", "15", "18", "20", "21", "22", "28", "29", "33", "34", "54", "55",
        "59", "62", "76", "91", "98", "99", "100", "107", "108"]


def test_field_counts(changes):
    def count(domain, name):
        return sum(c.fields[name] for c in changes[domain].values())

    assert {f: count("airline", f) for f in fh.FIELDS} == {
        "actions": 11, "communicate_info": 1, "nl_assertions": 12, "env_assertions": 0, "reward_basis": 0,
        "user_scenario": 22}
    assert {f: count("retail", f) for f in fh.FIELDS} == {
        "actions": 7, "communicate_info": 2, "nl_assertions": 33, "env_assertions": 0, "reward_basis": 114,
        "user_scenario": 21}
    retail = changes["retail"]
    # every retail task changed literally (explicit basis), but most only in format
    assert sum(c.literal for c in retail.values()) == 114
    assert sum(c.grader_migration for c in retail.values()) == 32
    assert _ids(retail, lambda c: c.bulk_basis_side_effect) == ["30", "31", "32", "105", "106", "107", "109", "110",
                                                                "111", "113"]
    assert _ids(retail, lambda c: c.compare_args_only) == ["10", "26", "50"]
    assert sum(c.compare_args_only for c in changes["airline"].values()) == 1


def test_known_fixes_are_classified(changes):
    airline, retail = changes["airline"], changes["retail"]
    assert "passengers" in airline["35"].summary and airline["35"].actions_writes_changed
    assert airline["19"].fields == {**{f: False for f in fh.FIELDS}, "user_scenario": True}
    assert retail["107"].actions_writes_changed and "new_item_ids" in retail["107"].summary
    assert retail["33"].fields["communicate_info"] and retail["33"].fixed
    assert retail["16"].grader_migration and not retail["16"].fixed      # '8276.23' restated as an NL assertion
    assert not retail["59"].actions_writes_changed                      # only a `calculate` step removed


def test_lint_on_old_tasks_predicts_fixes():
    results = fh.run(FIXTURES, replay=True, lint=True, lint_versions=("old",))
    measured = {}
    for result in results:
        total, per_kind = fh.scores(result)
        measured[result.domain] = (total.fixed, total.flagged_old, total.flagged_and_fixed,
                                   {k: (s.flagged_old, s.flagged_and_fixed) for k, s in per_kind.items()})
    # K5 compares search queries and new bookings with no record, and passengers with the user's own
    # records (23: renamed passengers, 35: the user's birth date are the real hits); K4 money near misses
    # keep the magnitude (7, 23, 44 quote totals, not typos of 168 / 126 / 130)
    # K1 / K3: the airline and retail packs' policy as code, run on tau2's folders (a folder whose database has
    # the pack's shape adopts the pack's rules and facts): airline 8 of 9 K1 flags and its K3 flag are fixed
    # tasks, retail 3 of 5 (59 cancels for a reason the policy does not accept, 105 and 64 are failing golds;
    # the identical-item exchanges are K2 of the retail policy, as they were K2 of a stage before)
    # K12: refusals a do-nothing run passes are one set warning (airline 39 -> 24 flagged, 21 -> 18 fixed:
    # 34, 43, 45 were fixed in their scenario, not their grading); a weak communicate_info beside a specific
    # one is a warning (retail 34 -> 31 flagged, 15 fixed kept); so is every task graded on a database its
    # gold leaves unchanged (a transfer, an ungraded finding, no NL assertion: airline 24 -> 20 flagged, 18 ->
    # 16 fixed, retail 31 -> 26, 15 -> 14), and a failing gold write is K2's alone (retail 105, 12)
    # K2/K5: a lookup with a wrong value the scenario scripts ("say 98178 first"), after which the gold
    # recovers, is info (retail 26 -> 17 flagged, 14 -> 12 fixed: 54 and 55 were fixed in their scenario)
    assert measured["airline"] == (27, 20, 16, {"K1": (9, 8), "K3": (1, 1), "K4": (2, 2), "K5": (2, 2), "K6": (9, 7),
                                                "K12": (1, 0)})
    # K9: an item write or a return settled with one of the user's methods while the scenario names none
    # and another is accepted (retail 17 -> 24 flagged, 12 -> 14 fixed: 15 and 100 were fixed by naming it)
    assert measured["retail"] == (28, 24, 14, {"K1": (5, 3), "K2": (9, 6), "K4": (2, 2), "K5": (3, 3),
                                               "K9": (7, 2), "K12": (5, 3)})
    # right reason: a flagged & fixed task with an error whose location (or the other side of its kind's
    # comparison, fh.REPAIR_FIELDS) is a part the fix changed; "at location" counts the finding's own path only
    reasons = {}
    for result in results:
        total, per_kind = fh.scores(result)
        warned, warned_kinds = fh.scores(result, "warning")
        reasons[result.domain] = (
            (total.right_reason, total.right_at_location, {k: s.right_reason for k, s in per_kind.items()}),
            (warned.flagged_old, warned.flagged_and_fixed, warned.right_reason,
             {k: s.right_reason for k, s in warned_kinds.items()}))
    assert reasons["airline"] == ((14, 10, {"K1": 6, "K3": 1, "K4": 2, "K5": 2, "K6": 7, "K12": 0}),
                                  (16, 10, 10, {"K4": 3, "K6": 3, "K7": 4, "K10": 1, "K11": 0, "K12": 0}))
    # the set-level K12 warning counts as one flagged subject that is no task; a weak communicate_info
    # beside a specific one is info and ungraded NL assertions restating a graded gold write are not
    # reported (retail warnings 24 -> 13 flagged, 6 -> 5 fixed); K11 reads tau2's scripted refusals ("forget
    # about it", "you are ok with canceling the other flight", "you move on") and "cancel or return" (airline
    # 35 and 43, retail 14 and 28 were K11 warnings that said no refusal was scripted), and "don't make any
    # changes" above a budget calls every request off (airline 34, a K10 warning)
    assert reasons["retail"] == ((13, 8, {"K1": 2, "K2": 6, "K4": 2, "K5": 3, "K9": 2, "K12": 0}),
                                 (11, 4, 2, {"K4": 0, "K6": 1, "K11": 0, "K12": 1}))
    # no warning fires on (almost) every task
    assert not any(fh.noise_warnings(r) for r in results)
    retail = {r.domain: r for r in results}["retail"]
    # the kind-exact hits: identical-item exchanges, a non-original refund method, a copied amount
    for task, kind in (("18", "K2"), ("91", "K2"), ("107", "K2"), ("12", "K2"), ("13", "K2"), ("21", "K2"),
                       ("33", "K4"), ("34", "K4")):
        assert kind in retail.old_flags[task]
    airline = {r.domain: r for r in results}["airline"]
    for task, kind in (("23", "K5"), ("35", "K5"), ("27", "K4"), ("35", "K4")):
        assert kind in airline.old_flags[task]


def _task(task_id, actions, scenario="You want to fly economy.", communicate=None):
    return {"id": task_id, "user_scenario": {"instructions": {"task_instructions": scenario}},
            "evaluation_criteria": {"actions": [{"action_id": f"{task_id}_{i}", "name": name, "arguments": args}
                                                for i, (name, args) in enumerate(actions)],
                                    "communicate_info": communicate or [], "nl_assertions": None}}


def test_right_reason_needs_the_flagged_part_changed():
    default = frozenset({"DB", "COMMUNICATE"})
    kinds = {"book_reservation": "write", "get_user_details": "read"}
    read = ("get_user_details", {"user_id": "u1"})
    old = _task("1", [read, ("book_reservation", {"cabin": "economy"})])
    # the fix changes the flagged argument of action 1
    fixed_there = fh.compare_task("airline", old, _task("1", [read, ("book_reservation", {"cabin": "basic_economy"})]),
                                  default, kinds)
    # the fix changes action 0 only; action 1 (the flagged one) is untouched
    fixed_elsewhere = fh.compare_task("airline", old, _task("1", [("get_user_details", {"user_id": "u2"}),
                                                                  ("book_reservation", {"cabin": "economy"})]),
                                      default, kinds)
    assert fixed_there.fixed and fixed_elsewhere.fixed
    assert "evaluation_criteria.actions[1]" in fixed_there.changed_parts
    assert "evaluation_criteria.actions[1]" not in fixed_elsewhere.changed_parts
    k2 = fh.LintFlag(task="1", kind="K2", severity="error", location="evaluation_criteria.actions[1].arguments.cabin",
                     message="")
    assert fh.right_reason(k2, fixed_there.changed_parts)
    assert not fh.right_reason(k2, fixed_elsewhere.changed_parts)
    # K7 (ambiguous scenario) may also be repaired in the scenario, the other side of its comparison
    k7 = fh.LintFlag(task="1", kind="K7", severity="warning", location=k2.location, message="")
    reworded = fh.compare_task("airline", old, _task("1", [read, ("book_reservation", {"cabin": "economy"})],
                                                     scenario="You want to fly economy, not basic economy."),
                               default, kinds)
    assert fh.right_reason(k7, reworded.changed_parts) and not fh.right_reason(k2, reworded.changed_parts)
    assert not fh.right_reason(k7, reworded.changed_parts, at_location=True)
    # a grader finding is not repaired by a scenario change; a communicate_info finding without a task path
    # falls back to the kind's fields
    k12 = fh.LintFlag(task="1", kind="K12", severity="error", location="", message="")
    assert not fh.right_reason(k12, reworded.changed_parts)
    recommunicated = fh.compare_task("airline", _task("1", [read], communicate=["5"]),
                                     _task("1", [read], communicate=["5 bags"]), default, kinds)
    assert fh.right_reason(k12, recommunicated.changed_parts)


def test_right_reason_scores_count_tasks_not_findings():
    default = frozenset({"DB", "COMMUNICATE"})
    read = ("get_user_details", {"user_id": "u1"})
    old = {"1": _task("1", [read, ("book_reservation", {"cabin": "economy"})]), "2": _task("2", [read]),
           "3": _task("3", [read])}
    new = {"1": _task("1", [read, ("book_reservation", {"cabin": "business"})]),
           "2": _task("2", [read], scenario="You want to fly business."), "3": old["3"]}
    changes = [fh.compare_task("airline", old[i], new[i], default, {}) for i in ("1", "2", "3")]
    findings = [fh.LintFlag("1", "K2", "error", "evaluation_criteria.actions[1].arguments.cabin", "a"),
                fh.LintFlag("1", "K2", "error", "evaluation_criteria.actions[0]", "b"),
                fh.LintFlag("2", "K2", "error", "evaluation_criteria.actions[0]", "c"),     # fixed elsewhere
                fh.LintFlag("3", "K10", "warning", "user_scenario.instructions", "d")]      # not fixed
    result = fh.DomainResult(domain="airline", changes=changes, sources={}, identical_files={},
                             old_findings=findings, old_flags=fh.kinds_by_task(findings, "error"),
                             old_warnings=fh.kinds_by_task(findings, "warning"))
    total, per_kind = fh.scores(result)
    assert (total.fixed, total.flagged_old, total.flagged_and_fixed, total.right_reason) == (2, 2, 2, 1)
    assert per_kind["K2"].right_reason == 1 and total.right_at_location == 1
    warned, _ = fh.scores(result, "warning")
    assert (warned.flagged_old, warned.flagged_and_fixed, warned.right_reason) == (1, 0, 0)
    assert fh.noise_warnings(result, threshold=0.3)[0]["tasks"] == 1 and not fh.noise_warnings(result)


def test_location_is_read_from_the_evidence():
    from taugen.findings import Finding

    findings = [Finding(check="c", code="K5", severity="error", subject="23", message="m",
                        evidence="evaluation_criteria.actions[2].arguments.passengers[0]: {\"dob\": \"1986\"}"),
                Finding(check="c", code="K12", severity="error", subject="4", message="m",
                        evidence="evaluation_criteria: ['DB', 'COMMUNICATE']"),
                Finding(check="c", code="K10", severity="warning", subject="26", message="m",
                        evidence="user_scenario.instructions"),
                Finding(check="c", code="K13", severity="error", subject="policy.md", message="m", evidence="x: y"),
                Finding(check="c", code="note", severity="info", subject="x", message="m")]
    flags = fh.flags_of(findings)
    assert [(f.kind, f.location) for f in flags] == [
        ("K5", "evaluation_criteria.actions[2].arguments.passengers[0]"), ("K12", "evaluation_criteria"),
        ("K10", "user_scenario.instructions"), ("K13", "")]
    # a bare 'evaluation_criteria' names no compared field: the kind's fields are the targets
    assert flags[1].repair_targets() == list(fh.REPAIR_FIELDS["K12"])
    assert flags[0].repair_targets() == [flags[0].location, "user_scenario"]
