"""Nothing a build makes depends on the machine's clock: the same pack and seed give the same world and
records on any day (faker's own date helpers count from today; taugen counts from the pack's ``now``)."""

from __future__ import annotations

import datetime as dt

import faker.providers.date_time
import pytest
from faker import Faker

from taugen.authoring.pack import load_pack
from taugen.build.pipeline import PACKS_DIR
from taugen.generators.corpus.genre import birth_date
from taugen.domains.banking.world import build_world


class _FourYearsLater(dt.datetime):
    """What faker's date provider sees as the clock: 4 July 2031, whatever today is."""

    @classmethod
    def now(cls, tz=None):
        return cls(2031, 7, 4, 12, 0, tzinfo=tz)


def test_world_is_the_same_on_another_day(monkeypatch):
    config = load_pack(PACKS_DIR / "banking").config
    today = build_world(config, 3)
    monkeypatch.setattr(faker.providers.date_time, "datetime", _FourYearsLater)
    later = build_world(config, 3)
    assert [c.date_of_birth for c in later.customers.values()] == [c.date_of_birth for c in today.customers.values()]
    assert later.model_dump() == today.model_dump()


@pytest.mark.parametrize("on", [dt.date(2026, 3, 16), dt.date(2024, 2, 29)])
def test_birth_dates_fall_in_the_age_range_on_the_given_day(on):
    fake = Faker("en_US")
    fake.seed_instance(7)
    for _ in range(300):
        born = birth_date(fake, on, 21, 84)
        age = on.year - born.year - ((on.month, on.day) < (born.month, born.day))
        assert 21 <= age <= 84
    with pytest.raises(ValueError):
        birth_date(fake, on, 30, 20)


def test_records_keep_the_business_clock_with_its_daylight_saving():
    """Records' UTC offsets follow the pack's time zone: a Chicago January is -06:00, a July -05:00 (every
    record took now's fixed -05:00 all year before). A pack whose now disagrees with its zone on that day
    keeps now's offset, and a zone that does not exist is a pack error."""
    import pydantic

    from taugen.authoring.models import DomainConfig
    from taugen.generators.corpus.stamps import as_local, business_zone, offset_label

    config = load_pack(PACKS_DIR / "banking").config
    zone = business_zone(config)
    assert offset_label(as_local(dt.datetime(2025, 1, 15, 10), zone)) == "UTC-06:00"
    assert offset_label(as_local(dt.datetime(2025, 7, 15, 10), zone)) == "UTC-05:00"
    assert as_local(config.now, zone).utcoffset() == config.now.utcoffset()
    winter_now = config.model_copy(update={"now": dt.datetime(2026, 1, 15, 10, tzinfo=dt.timezone(dt.timedelta(hours=-5)))})
    assert business_zone(winter_now) == dt.timezone(dt.timedelta(hours=-5))
    with pytest.raises(pydantic.ValidationError, match="not an IANA time zone"):
        DomainConfig(**{**config.model_dump(), "time_zone": "America/Springfield"})
