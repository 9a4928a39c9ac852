"""The simulated city (:mod:`anonkit.datasets.city`): a seeded stream of position updates and
service requests from random-waypoint movers, with homes some of which are alone in their cell."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit.datasets.city import CITY_COLUMNS, DEFAULT_OPTIONS, city_homes, make_city, simulate_city
from anonkit.errors import InputError


@pytest.fixture(scope="module")
def city():  # type: ignore[no-untyped-def]
    return simulate_city(1_500, 60, seed=3)


def test_the_same_seed_gives_the_same_city_and_another_seed_another() -> None:
    a = make_city(300, 20, 7)
    pd.testing.assert_frame_equal(a, make_city(300, 20, 7))
    pd.testing.assert_frame_equal(city_homes(300, 20, 7), simulate_city(300, 20, 7).homes)
    b = make_city(300, 20, 8)
    assert not (len(a) == len(b) and (a.to_numpy() == b.to_numpy()).all())
    # an option changes the city
    c = make_city(300, 20, 7, request_rate=0.1)
    assert (c["kind"] == "request").sum() > (a["kind"] == "request").sum()


def test_columns_kinds_and_time_order(city) -> None:  # type: ignore[no-untyped-def]
    s = city.stream
    assert tuple(s.columns) == CITY_COLUMNS
    assert list(s.index) == list(range(len(s)))
    assert s["t"].is_monotonic_increasing and s["t"].min() == 0 and s["t"].max() == 59
    assert set(s["kind"]) == {"update", "request"}
    # within a step every update comes before the first request, each kind in subject order
    kind_code = (s["kind"] == "request").astype(int)
    assert (s.groupby("t")["kind"].apply(lambda k: (k == "request").astype(int).is_monotonic_increasing)).all()
    assert (s.assign(k=kind_code).groupby(["t", "k"])["subject"].apply(lambda x: x.is_monotonic_increasing)).all()
    side = DEFAULT_OPTIONS["side"]
    assert s["x"].between(0, side - 1).all() and s["y"].between(0, side - 1).all()  # type: ignore[operator]
    assert s["x"].dtype == np.int64 and s["t"].dtype == np.int64
    req = s[s["kind"] == "request"]
    assert req["payload"].str.fullmatch(r"q\d{4}").all() and (s.loc[s["kind"] == "update", "payload"] == "").all()
    # every subject updates at every step (update_rate 1): the broker knows the true positions
    upd = s[s["kind"] == "update"]
    assert len(upd) == 1_500 * 60
    assert set(s["subject"]) == set(city.subjects) and city.subjects[0] == "s00001"
    # messages carry the true positions
    idx = pd.Index(city.subjects).get_indexer(s["subject"])
    assert (city.positions[s["t"], idx, 0] == s["x"]).all() and (city.positions[s["t"], idx, 1] == s["y"]).all()
    assert len(city.requests()) == len(req) and (city.requests()["kind"] == "request").all()
    track = city.track()
    assert len(track) == 1_500 * 60 and tuple(track.columns) == ("t", "subject", "x", "y")


def test_request_rate_is_as_documented(city) -> None:  # type: ignore[no-untyped-def]
    req = city.stream[city.stream["kind"] == "request"]
    away = (~city.at_home).sum()
    home = city.at_home.sum()
    expected = away * 0.02 + home * 0.04
    assert abs(len(req) - expected) < 4 * np.sqrt(expected)


def test_districts_are_denser_than_elsewhere(city) -> None:  # type: ignore[no-untyped-def]
    pos = city.positions.reshape(-1, 2).astype(float)
    d = np.hypot(pos[:, None, 0] - city.districts[None, :, 0], pos[:, None, 1] - city.districts[None, :, 1]).min(1)
    radius = 2 * float(DEFAULT_OPTIONS["district_sd"])  # type: ignore[arg-type]
    near = d < radius
    side = float(DEFAULT_OPTIONS["side"])  # type: ignore[arg-type]
    near_area = min(len(city.districts) * np.pi * radius**2, side**2)  # an upper bound (discs may overlap)
    density_near = near.sum() / near_area
    density_elsewhere = (~near).sum() / (side**2 - near_area)
    assert density_near > 5 * density_elsewhere


def test_homes_exist_residents_start_at_home_and_some_live_alone(city) -> None:  # type: ignore[no-untyped-def]
    homes = city.homes
    assert 0.3 < len(homes) / 1_500 < 0.5  # home_share 0.4
    assert homes["alone"].any() and (~homes["alone"]).any()
    cell = city.home_cell
    assert (homes["cell_x"] == homes["x"] // cell).all() and (homes["cell_y"] == homes["y"] // cell).all()
    counted = homes.groupby(["cell_x", "cell_y"])["subject"].transform("size")
    assert (counted == homes["residents"]).all() and (homes["alone"] == (homes["residents"] == 1)).all()
    idx = pd.Index(city.subjects).get_indexer(homes["subject"])
    assert (city.positions[0, idx] == homes[["x", "y"]].to_numpy()).all()  # residents start at home
    assert city.at_home[0, idx].all() and not city.at_home[:, np.setdiff1d(np.arange(1_500), idx)].any()
    assert city.at_home[:, idx].mean() > 0.1  # they return home and stay a while
    lone = city.lone_homes()
    assert len(lone) == homes["alone"].sum() and set(lone.columns) == {"subject", "x", "y", "cell_x", "cell_y"}


def test_movers_walk_at_most_their_top_speed(city) -> None:  # type: ignore[no-untyped-def]
    step = np.hypot(*np.diff(city.positions, axis=0).transpose(2, 0, 1).astype(float))
    top = DEFAULT_OPTIONS["speed"][1]  # type: ignore[index]
    assert step.max() <= top + 2  # rounding down each position moves it by less than a metre per axis
    assert (step > 0).mean() > 0.4  # most of the time most subjects move


def test_a_lower_update_rate_thins_the_updates_but_not_step_zero() -> None:
    s = make_city(400, 30, 1, update_rate=0.25)
    upd = s[s["kind"] == "update"]
    assert (upd["t"] == 0).sum() == 400
    later = (upd["t"] > 0).sum() / (400 * 29)
    assert 0.2 < later < 0.3


@pytest.mark.parametrize(("args", "options", "key"), [
    ((0, 10, 0), {}, "subjects"), ((10, 0, 0), {}, "steps"), ((10, 10, -1), {}, "seed"),
    ((10, 10, 0), {"bogus": 1}, "bogus"), ((10, 10, 0), {"request_rate": 1.5}, "request_rate"),
    ((10, 10, 0), {"speed": (9, 3)}, "speed"), ((10, 10, 0), {"home_pause": 3}, "home_pause"),
    ((10, 10, 0), {"update_rate": 0}, "update_rate"), ((10, 10, 0), {"home_cell": 5000}, "home_cell"),
    ((True, 10, 0), {}, "subjects"),
])
def test_bad_arguments_name_the_key(args: tuple, options: dict, key: str) -> None:
    with pytest.raises(InputError) as err:
        make_city(*args, **options)
    assert err.value.key == key


def test_ten_thousand_subjects_for_a_hundred_steps() -> None:
    s = make_city(10_000, 100, 0)
    assert (s["kind"] == "update").sum() == 1_000_000 and 15_000 < (s["kind"] == "request").sum() < 30_000
