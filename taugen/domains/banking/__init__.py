"""The banking domain's code: Cedar Ridge Bank's world, tools and problem functions."""

from taugen.generators.domain import DomainDefinition
from taugen.domains.banking.families import binding
from taugen.domains.banking.policy import RULES
from taugen.domains.banking.problems import PROBLEMS, IdentityVerification
from taugen.domains.banking.tools import BankingTools
from taugen.domains.banking.world import build_world

PERSONAS: dict[str, str | None] = {
    "None": None,
    "Plain": ("You are a 38-year-old project coordinator. You use online banking every week, answer questions "
              "directly and expect the agent to be efficient."),
    "Demanding": ("You are a 71-year-old retired machinist who is uneasy with computers and phones. You are "
                  "irritated that you had to call, you interrupt when you feel ignored, you ask the agent to repeat "
                  "numbers, and you do not know banking terms unless they are explained."),
}

POLICY_PREAMBLE = """You are a customer service agent for {brand}. You help customers with their accounts,
cards, fees, disputes, wires and statements over chat and phone.

- Verify the caller's identity before discussing or changing anything on an account.
- Use the tools to look up customers, accounts, cards, transactions and disputes; never invent an id,
  an amount or a date.
- Before any change to an account, explain what you will do (including any fee) and get the customer's
  explicit yes.
- Make one tool call at a time, and do not respond to the user while you are making a tool call.
- Services, limits and policy questions are catalogued by topic (find_service_topics). Charge a
  catalogued service's fee with charge_service_fee, submit an allowed request with
  submit_service_request, and when you tell a customer a policy value (a fee, rate, limit, window, date
  or rule), note it on their file with record_quote.
- Transfer the caller to a human team with transfer_to_human_agents only when policy sends the case
  there, naming the department; then tell the caller they are being transferred.
- The current time is {now}.
"""

REQUEST_WORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "refund": (r"\b(?:refund|rebat)\w*", ("refund",)),
    "dispute": (r"\bdispute\w*", ("dispute",)),
    "replace": (r"\breplace\w*", ("replacement",)),
    "close": (r"\bclose (?:the|my|an?|this|that)\b", ("close",)),
    "wire": (r"\bwire\b", ("wire",)),
    "stop payment": (r"\bstop payment\b", ("stop_payment",)),
    "switch statements": (r"\bswitch\w*\b[^.]{0,40}\b(?:statements?|online|paper|electronic)\b", ("statement",)),
    "credit": (r"\bcredit\b(?!\s+card)", ("credit",)),
}
"""The bank's own requests for the K10/K11 scenario check (``DomainDefinition.request_words``): the phrase a
customer asks with → the stems of the write tools that carry it out (a fee refund, a dispute, a replacement
card, closing an account, a wire, a stop payment, switching statement delivery, a provisional credit)."""

DECISION_TARGETS: tuple[tuple[str, str], ...] = (("transaction_id", "transactions"), ("card_id", "cards"),
                                                 ("dispute_id", "disputes"))
"""The records a bank's write acts on (``DomainDefinition.decision_targets``): a transaction, a card or a
dispute, looked up so that the K17 check sees whether the scenario describes the record a refused write
was about."""

DOMAIN = DomainDefinition(
    name="banking",
    toolkit=BankingTools,
    build_world=build_world,
    opening=IdentityVerification,
    problems=PROBLEMS,
    personas=PERSONAS,
    policy_preamble=POLICY_PREAMBLE,
    policy=RULES,
    families=binding,
    request_words=REQUEST_WORDS,
    decision_targets=DECISION_TARGETS,
)
