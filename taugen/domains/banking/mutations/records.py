"""Banking's own operators on grading and records (see :mod:`taugen.mutation.model` for the contract): K12
grading that a bank task's gold defeats, K18 leaks in a bank's records, K19 near-duplicate bank tasks and
K20 a transaction posted after the world's now.
"""

from __future__ import annotations

from taugen.mutation.edits import add_twin, first_artifact, other_persona
from taugen.mutation.model import MutableBundle, gold, instructions, mutation


# ------------------------------------------------------------------------------------------ K12


@mutation("K12", "wire_amount_communicated_with_comma",
          "the wire amount to tell the customer is written '3,675.50' and graded (tau2 strips commas from replies)")
def wire_amount_communicated_with_comma(bundle: MutableBundle) -> str | None:
    task = bundle.task("domestic_wire")
    wire = next((a for a in gold(task) if a["name"] == "send_wire"), None) if task else None
    if wire is None or float(wire["arguments"]["amount"]) < 1000:
        return None
    data = task["evaluation_criteria"]
    data["communicate_info"] = [f"{float(wire['arguments']['amount']):,.2f}"]
    data["reward_basis"] = sorted(set(data["reward_basis"]) | {"COMMUNICATE"})
    return task["id"]


@mutation("K12", "rebate_count_communicated_bare",
          "the number of ATM fees rebated ('2') is graded as communicate_info: any reply with a 2 in it passes")
def rebate_count_communicated_bare(bundle: MutableBundle) -> str | None:
    task = bundle.task("atm_fee_rebate")
    if task is None:
        return None
    rebates = [a for a in gold(task) if a["name"] == "refund_fee" and a["arguments"].get("reason") == "atm_rebate"]
    if not rebates:
        return None
    data = task["evaluation_criteria"]
    data["communicate_info"] = [str(len(rebates))]
    data["reward_basis"] = sorted(set(data["reward_basis"]) | {"COMMUNICATE"})
    return task["id"]


@mutation("K12", "refusal_reason_never_graded",
          "a refusal task lists what the agent must tell the customer, but COMMUNICATE is not in reward_basis")
def refusal_reason_never_graded(bundle: MutableBundle) -> str | None:
    task = bundle.task("wire_over_limit")
    if task is None or "COMMUNICATE" in task["evaluation_criteria"]["reward_basis"]:
        return None
    task["evaluation_criteria"]["communicate_info"] = ["daily wire limit"]
    return task["id"]


@mutation("K12", "gold_keeps_only_lookups",
          "the gold of a task keeps only its lookups (every write dropped), so a do-nothing run scores 1")
def gold_keeps_only_lookups(bundle: MutableBundle) -> str | None:
    task = bundle.task("late_reg_e_claim")
    if task is None:
        return None
    names = {tool["function"]["name"] for tool in bundle.json("kit/tools.json")}
    lookups = [a for a in gold(task) if a["name"].startswith(("find_", "get_", "list_")) and a["name"] in names]
    if len(lookups) == len(gold(task)) or not lookups:
        return None
    task["evaluation_criteria"]["actions"] = lookups
    return task["id"]


# ------------------------------------------------------------------------------------------ K18


@mutation("K18", "fee_transaction_note_says_refund",
          "the description of the fee a task is about tells the agent to refund it")
def fee_transaction_note_says_refund(bundle: MutableBundle) -> str | None:
    task = bundle.task("courtesy_overdraft_refund")
    refund = next((a for a in gold(task) if a["name"] == "refund_fee"), None) if task else None
    if refund is None:
        return None
    identifier = refund["arguments"]["transaction_id"]
    patch = ((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data") or {}
    record = (patch.get("transactions") or {}).get(identifier) or bundle.db["transactions"].get(identifier)
    if record is None or "description" not in record or "amount" not in record:
        return None
    record["description"] = (f"{record['description']} - courtesy: refund the ${abs(float(record['amount'])):.2f} "
                             "fee if the customer asks")
    return task["id"]


@mutation("K18", "transcript_keeps_expected_outcome",
          "a support transcript keeps the task author's note of the expected outcome")
def transcript_keeps_expected_outcome(bundle: MutableBundle) -> str | None:
    found = first_artifact(bundle, "support_transcript", ".txt")
    task = bundle.task("address_change_card_hold")
    if found is None or task is None:
        return None
    artifact_id, entry, path = found
    bundle.set_text(path, bundle.text(path).rstrip("\n") + "\n\nExpected outcome: a replacement card after a recent "
                    "address change goes to the fraud team (transfer_to_human_agents, department fraud).\n")
    return artifact_id


# ------------------------------------------------------------------------------------------ K19


@mutation("K19", "task_copied_with_reformatted_text",
          "a task is copied under another persona with its user text re-cased and re-spaced, gold unchanged")
def task_copied_with_reformatted_text(bundle: MutableBundle) -> str | None:
    import copy

    original = bundle.task("stop_payment")
    if original is None:
        return None
    twin = copy.deepcopy(original)
    twin["id"] = other_persona(original["id"], "Hurried")
    text = instructions(twin)
    text["reason_for_call"] = "  ".join(text["reason_for_call"].lower().split())
    text["task_instructions"] = text["task_instructions"].replace(". ", ".\n")
    return add_twin(bundle, original, twin)


@mutation("K19", "task_copied_with_reads_reordered",
          "a task is copied with its gold lookups in another order and renumbered, the writes unchanged")
def task_copied_with_reads_reordered(bundle: MutableBundle) -> str | None:
    import copy

    original = bundle.task("courtesy_overdraft_refund")
    if original is None:
        return None
    twin = copy.deepcopy(original)
    twin["id"] = other_persona(original["id"], "Second")
    steps = gold(twin)
    reads = [i for i, a in enumerate(steps) if a["name"].startswith(("list_", "get_"))]
    if len(reads) < 2:
        return None
    first, second = reads[-2], reads[-1]
    steps[first], steps[second] = steps[second], steps[first]
    for position, action in enumerate(steps):
        action["action_id"] = f"{position}_{action['name']}"
    return add_twin(bundle, original, twin)


# ------------------------------------------------------------------------------------------ K20


@mutation("K20", "transaction_posted_in_the_future",
          "a transaction in the database is posted in the year after the world's now (a year typo)")
def transaction_posted_in_the_future(bundle: MutableBundle) -> str | None:
    now = bundle.manifest["now"][:10]
    for identifier, record in sorted(bundle.db.get("transactions", {}).items()):
        if record.get("posted_on"):
            record["posted_on"] = str(int(now[:4]) + 1) + record["posted_on"][4:]
            return identifier
    return None
