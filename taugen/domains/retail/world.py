"""Seed the retail world: a catalogue of product types with variant items, users, and their orders.

The shape follows τ²-bench's retail database: fifty product types (``T-Shirt``, ``Office Chair``, ...)
with ten-digit product ids, each with variant items (ten-digit item ids, option values such as colour
and size, availability and a price), users ``first_last_1234`` with an email, a default address and
credit cards, paypal accounts and gift cards, and orders ``#W1234567`` of one to four items whose status is
pending, processed, delivered or cancelled in about tau2's proportions, with fulfilments (tracking ids) for
shipped orders and a payment history (a refund beside the payment of a cancelled order). Every draw comes
from a ``random.Random`` and a Faker seeded from the build seed, so the same seed gives the same world.
"""

from __future__ import annotations

import itertools
import random

from faker import Faker

from taugen.authoring.models import DomainConfig
from taugen.hashing import stable_seed

from .db import (CANCEL_REASONS, CreditCard, GiftCard, Order, OrderFullfilment, OrderItem, OrderPayment, Paypal,
                 Product, RetailDB, User, UserAddress, UserName, Variant)

CATALOGUE: tuple[tuple[str, dict[str, tuple[str, ...]], tuple[int, int]], ...] = (
    ("Action Camera", {"resolution": ("4K", "5K", "1080p"), "waterproof": ("yes", "no"), "color": ("black", "silver")}, (250, 550)),
    ("Air Purifier", {"room size": ("small", "medium", "large"), "filter type": ("HEPA", "carbon", "ionic"), "features": ("quiet operation", "night mode", "smart sensors")}, (90, 560)),
    ("Backpack", {"color": ("black", "grey", "navy", "green"), "size": ("small", "medium", "large"), "material": ("nylon", "polyester", "leather")}, (170, 240)),
    ("Bicycle", {"frame size": ("small", "medium", "large"), "color": ("red", "blue", "black", "green"), "type": ("road", "mountain")}, (1800, 2300)),
    ("Bluetooth Speaker", {"color": ("black", "blue", "red", "green"), "battery life": ("10 hours", "20 hours"), "water resistance": ("yes", "no")}, (150, 350)),
    ("Bookshelf", {"material": ("wood", "metal", "glass"), "color": ("white", "brown", "black"), "height": ("3 ft", "4 ft", "5 ft", "6 ft")}, (440, 560)),
    ("Coffee Maker", {"color": ("black", "stainless steel"), "capacity": ("1 cup", "2 cups", "4 cups", "8 cups"), "type": ("drip", "espresso", "french press")}, (80, 330)),
    ("Cycling Helmet", {"size": ("S", "M", "L"), "color": ("white", "black", "red", "blue"), "ventilation": ("low", "medium", "high")}, (130, 230)),
    ("Desk Lamp", {"color": ("white", "black", "silver"), "brightness": ("low", "medium", "high"), "power source": ("AC adapter", "battery", "USB")}, (130, 170)),
    ("Digital Camera", {"resolution": ("20MP", "24MP", "30MP"), "zoom": ("3x", "5x", "10x"), "storage": ("SD card", "CF card")}, (2500, 3200)),
    ("Dumbbell Set", {"weight range": ("5-25 lbs", "30-50 lbs", "55-75 lbs"), "material": ("iron", "rubber", "urethane"), "set type": ("fixed", "adjustable")}, (440, 560)),
    ("E-Reader", {"screen size": ("6-inch", "7-inch", "8-inch"), "connectivity": ("Wi-Fi", "Wi-Fi + Cellular"), "storage": ("8GB", "32GB")}, (250, 330)),
    ("Electric Kettle", {"capacity": ("1L", "1.5L", "2L"), "material": ("plastic", "stainless steel", "glass"), "color": ("white", "black", "silver")}, (140, 260)),
    ("Electric Toothbrush", {"color": ("white", "black", "blue"), "speed settings": ("low", "high"), "battery type": ("AA batteries", "rechargeable")}, (150, 200)),
    ("Espresso Machine", {"pressure": ("9 bar", "15 bar", "19 bar"), "capacity": ("1L", "1.5L", "2L"), "type": ("manual", "automatic", "capsule")}, (2500, 3150)),
    ("Fleece Jacket", {"size": ("S", "M", "L", "XL"), "color": ("black", "navy", "red"), "zipper": ("full", "half")}, (130, 240)),
    ("Gaming Mouse", {"color": ("black", "white", "RGB"), "sensor type": ("optical", "laser"), "connectivity": ("wired", "wireless")}, (130, 200)),
    ("Garden Hose", {"length": ("25ft", "50ft", "100ft"), "material": ("rubber", "vinyl", "latex"), "color": ("green", "blue", "black")}, (90, 110)),
    ("Grill", {"type": ("charcoal", "electric", "gas"), "size": ("portable", "medium", "large"), "features": ("rotisserie", "side burner", "none")}, (420, 530)),
    ("Headphones", {"type": ("in-ear", "on-ear", "over-ear"), "connectivity": ("wired", "wireless"), "color": ("black", "white", "red", "blue")}, (180, 380)),
    ("Hiking Boots", {"size": ("7", "8", "9", "10", "11", "12"), "material": ("leather", "synthetic"), "waterproof": ("yes", "no")}, (200, 260)),
    ("Indoor Security Camera", {"resolution": ("1080p", "2K", "4K"), "field of view": ("110 degrees", "130 degrees", "160 degrees"), "connectivity": ("Wi-Fi", "Ethernet")}, (150, 400)),
    ("Jigsaw Puzzle", {"pieces": ("500", "1000", "1500", "2000"), "theme": ("animals", "art", "fantasy", "landscape"), "difficulty level": ("beginner", "intermediate", "expert")}, (45, 55)),
    ("LED Light Bulb", {"brightness": ("60W equivalent", "75W equivalent", "100W equivalent"), "color temperature": ("warm white", "daylight"), "connectivity": ("none", "Wi-Fi", "Bluetooth")}, (45, 55)),
    ("Laptop", {"screen size": ("13-inch", "15-inch", "17-inch"), "processor": ("i5", "i7", "i9"), "ram": ("8GB", "16GB", "32GB"), "color": ("silver", "space grey", "black")}, (2200, 3000)),
    ("Luggage Set", {"piece count": ("2-piece", "3-piece", "4-piece"), "color": ("black", "blue", "red", "silver"), "material": ("hardshell", "softshell")}, (450, 660)),
    ("Makeup Kit", {"skin tone": ("light", "medium", "dark"), "kit size": ("basic", "professional"), "brand": ("Brand A", "Brand B", "Brand C")}, (230, 260)),
    ("Mechanical Keyboard", {"switch type": ("linear", "tactile", "clicky"), "backlight": ("none", "white", "RGB"), "size": ("60%", "80%", "full size")}, (130, 280)),
    ("Notebook", {"size": ("A4", "A5"), "cover type": ("hard cover", "soft cover")}, (30, 60)),
    ("Office Chair", {"material": ("fabric", "leather", "mesh"), "color": ("black", "gray", "blue", "red"), "armrest": ("fixed", "adjustable", "none")}, (430, 560)),
    ("Patio Umbrella", {"size": ("6 ft", "7 ft", "8 ft"), "color": ("green", "blue", "red", "black"), "material": ("polyester", "olefin", "sunbrella")}, (250, 300)),
    ("Perfume", {"scent family": ("woody", "fresh", "oriental"), "size": ("30ml", "50ml", "100ml"), "gender": ("men", "women", "unisex")}, (260, 320)),
    ("Pet Bed", {"size": ("small", "medium", "large"), "material": ("polyester", "fleece", "memory foam"), "color": ("grey", "brown", "beige")}, (180, 200)),
    ("Portable Charger", {"capacity": ("5000mAh", "10000mAh", "20000mAh"), "output": ("USB-A", "USB-C", "Wireless"), "color": ("black", "white", "blue")}, (50, 160)),
    ("Running Shoes", {"size": ("8", "9", "10", "11"), "color": ("black", "white", "red", "yellow"), "material": ("mesh", "leather", "synthetic")}, (140, 210)),
    ("Skateboard", {"deck material": ("maple", "bamboo", "plastic"), "length": ("28 inch", "31 inch", "34 inch"), "design": ("plain", "graphic", "custom")}, (120, 220)),
    ("Smart Thermostat", {"compatibility": ("Apple HomeKit", "Google Assistant", "Amazon Alexa"), "color": ("black", "white", "stainless steel")}, (230, 270)),
    ("Smart Watch", {"color": ("black", "silver", "gold"), "band material": ("leather", "silicone", "metal"), "display": ("LCD", "AMOLED")}, (320, 390)),
    ("Smartphone", {"color": ("black", "gold", "rose gold", "silver"), "storage": ("64GB", "128GB", "256GB"), "RAM": ("4GB", "6GB", "8GB")}, (1050, 1300)),
    ("Sneakers", {"size": ("8", "9", "10", "11", "12"), "color": ("black", "white", "gray", "red"), "material": ("leather", "synthetic", "canvas")}, (150, 210)),
    ("Sunglasses", {"frame color": ("black", "brown", "silver"), "lens color": ("green", "brown", "grey", "blue"), "lens type": ("polarized", "non-polarized")}, (260, 320)),
    ("T-Shirt", {"color": ("blue", "purple", "red", "black", "white"), "size": ("S", "M", "L", "XL", "XXL"), "material": ("cotton", "polyester")}, (45, 55)),
    ("Tablet", {"screen size": ("7-inch", "8-inch", "10-inch"), "storage": ("32GB", "64GB", "128GB"), "color": ("black", "silver", "gold")}, (2900, 3100)),
    ("Tea Kettle", {"material": ("glass", "ceramic", "stainless steel"), "capacity": ("1 liter", "1.5 liters", "2 liters"), "stovetop compatibility": ("gas", "electric", "induction")}, (80, 150)),
    ("Vacuum Cleaner", {"type": ("robotic", "upright", "canister"), "bagged/bagless": ("bagged", "bagless"), "features": ("pet hair removal", "cordless", "HEPA filter")}, (500, 660)),
    ("Wall Clock", {"diameter": ("10 inches", "12 inches", "14 inches"), "color": ("black", "white", "wood"), "type": ("analog", "digital")}, (150, 300)),
    ("Water Bottle", {"capacity": ("500ml", "750ml", "1000ml"), "material": ("plastic", "glass", "stainless steel"), "color": ("blue", "red", "green", "black")}, (20, 50)),
    ("Wireless Earbuds", {"color": ("black", "white", "blue"), "battery life": ("4 hours", "6 hours", "8 hours"), "water resistance": ("IPX4", "IPX7", "not resistant")}, (50, 260)),
    ("Wristwatch", {"strap material": ("leather", "silicone", "metal"), "dial color": ("black", "white", "blue")}, (1700, 2300)),
    ("Yoga Mat", {"thickness": ("4mm", "5mm", "6mm"), "material": ("natural rubber", "PVC", "TPE"), "color": ("blue", "green", "pink", "purple")}, (90, 140)),
)
"""The store's fifty product types: name, option names with their values, and the price range (dollars) of
their variant items."""

STATES = ("AL", "AZ", "CA", "CO", "CT", "FL", "GA", "IL", "IN", "MA", "MD", "MI", "MN", "MO", "NC", "NJ", "NY", "OH",
          "OR", "PA", "TN", "TX", "VA", "WA", "WI")
"""The states of seeded addresses (the fifty are not needed; territories never appear)."""
CARD_BRANDS = ("visa", "mastercard", "amex", "discover")
ORDER_STATUSES = (("pending", 0.42), ("delivered", 0.37), ("processed", 0.11), ("cancelled", 0.10))
"""The statuses of a seeded order and their shares (about tau2's: 423, 373, 102 and 102 of 1,000)."""


def ten_digits(rng: random.Random, taken: set[str]) -> str:
    """A fresh ten-digit id (a product id or an item id), added to ``taken``."""
    code = str(rng.randint(1_000_000_000, 9_999_999_999))
    while code in taken:
        code = str(rng.randint(1_000_000_000, 9_999_999_999))
    taken.add(code)
    return code


def seven_digits(rng: random.Random) -> str:
    """The seven-digit number of a payment method id (``credit_card_1234567``) or an order id (``#W1234567``)."""
    return str(rng.randint(1_000_000, 9_999_999))


def _catalogue(rng: random.Random, taken: set[str]) -> dict[str, Product]:
    """Every product type with five to nine variant items (most available), keyed by product id."""
    products: dict[str, Product] = {}
    for name, options, (low, high) in CATALOGUE:
        product_id = ten_digits(rng, taken)
        combinations = list(itertools.product(*options.values()))
        chosen = rng.sample(combinations, min(len(combinations), rng.randint(5, 9)))
        variants = {}
        for values in chosen:
            item_id = ten_digits(rng, taken)
            variants[item_id] = Variant(item_id=item_id, options=dict(zip(options, values)),
                                        available=rng.random() < 0.8,
                                        price=round(rng.uniform(low, high), 2))
        products[product_id] = Product(name=name, product_id=product_id, variants=variants)
    return products


def _address(fake: Faker, rng: random.Random) -> UserAddress:
    state = rng.choice(STATES)
    second = f"Suite {rng.randint(100, 999)}" if rng.random() < 0.5 else ""
    return UserAddress(address1=f"{rng.randint(10, 999)} {fake.street_name()}", address2=second, city=fake.city(),
                       country="USA", state=state, zip=fake.postcode_in_state(state))


def build_world(config: DomainConfig, seed: int, users: int = 40) -> RetailDB:
    """The initial database: the catalogue, ``users`` users and one to four orders each.

    Raises nothing: every draw is seeded from ``seed`` and the pack's domain name.
    """
    rng = random.Random(stable_seed(seed, config.domain, "world"))
    fake = Faker(config.locale)
    fake.seed_instance(stable_seed(seed, config.domain, "world-faker"))
    taken: set[str] = set()
    db = RetailDB(products=_catalogue(rng, taken))
    order_ids: set[str] = set()
    for _ in range(users):
        first, last = fake.first_name(), fake.last_name()
        number = rng.randint(1000, 9999)
        user_id = f"{first}_{last}_{number}".lower().replace("'", "").replace(" ", "")
        while user_id in db.users:
            number = rng.randint(1000, 9999)
            user_id = f"{first}_{last}_{number}".lower().replace("'", "").replace(" ", "")
        methods: dict = {}
        for source in ("credit_card", "paypal", "gift_card"):
            if source != "credit_card" and rng.random() < 0.45:
                continue
            method_id = f"{source}_{seven_digits(rng)}"
            if source == "credit_card":
                methods[method_id] = CreditCard(id=method_id, brand=rng.choice(CARD_BRANDS),
                                                last_four=f"{rng.randint(0, 9999):04d}")
            elif source == "paypal":
                methods[method_id] = Paypal(id=method_id)
            else:
                methods[method_id] = GiftCard(id=method_id, balance=float(rng.randint(0, 200)))
        user = User(user_id=user_id, name=UserName(first_name=first, last_name=last), address=_address(fake, rng),
                    email=f"{first}.{last}{rng.randint(1, 9999)}@example.com".lower().replace(" ", "").replace("'", ""),
                    payment_methods=methods, orders=[])
        db.users[user_id] = user
        for _ in range(rng.randint(1, 4)):
            order = seeded_order(rng, db, user, order_ids)
            db.orders[order.order_id] = order
            user.orders.append(order.order_id)
    return db


def order_id(rng: random.Random, taken: set[str]) -> str:
    """A fresh order id ``#W`` and seven digits, added to ``taken``."""
    code = f"#W{seven_digits(rng)}"
    while code in taken:
        code = f"#W{seven_digits(rng)}"
    taken.add(code)
    return code


def order_item(product: Product, variant: Variant) -> OrderItem:
    """The order line of ``variant`` of ``product`` at its current price."""
    return OrderItem(name=product.name, product_id=product.product_id, item_id=variant.item_id, price=variant.price,
                     options=dict(variant.options))


def seeded_order(rng: random.Random, db: RetailDB, user: User, taken: set[str]) -> Order:
    """An order of the user's: one to four items of different products, a status drawn by tau2's shares, a
    fulfilment once shipped, and the payment (plus its refund when cancelled) by one payment method."""
    products = [db.products[key] for key in rng.sample(sorted(db.products), rng.randint(1, 4))]
    items = [order_item(p, p.variants[rng.choice(sorted(p.variants))]) for p in products]
    draw, status = rng.random(), "pending"
    for candidate, share in ORDER_STATUSES:
        if draw < share:
            status = candidate
            break
        draw -= share
    total = round(sum(item.price for item in items), 2)
    method = rng.choice(sorted(user.payment_methods))
    fulfilments = ([OrderFullfilment(tracking_id=[str(rng.randint(100_000_000_000, 999_999_999_999))],
                                     item_ids=[item.item_id for item in items])]
                   if status in ("processed", "delivered") else [])
    history = [OrderPayment(transaction_type="payment", amount=total, payment_method_id=method)]
    order = Order(order_id=order_id(rng, taken), user_id=user.user_id, address=user.address.model_copy(),
                  items=items, status=status, fulfillments=fulfilments, payment_history=history)
    if status == "cancelled":
        order.payment_history.append(OrderPayment(transaction_type="refund", amount=total, payment_method_id=method))
        order.cancel_reason = rng.choice(CANCEL_REASONS)
    return order
