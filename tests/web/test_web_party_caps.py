"""The per-party caps of `suburbia serve` (issue 30, item 5) as the command line sets them:
public defaults on a public address, none beyond --max-games on loopback, where one
person playing many games must not be refused."""

import pytest

pytest.importorskip("fastapi")

from suburbia_env.apps.cli import build_parser  # noqa: E402
from suburbia_env.apps.web.server import settings_from_arguments  # noqa: E402


def _limits(*arguments):
    args = build_parser().parse_args(["serve", "--store", ":memory:", *arguments])
    return settings_from_arguments(args).limits


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_loopback_host_caps_parties_only_by_the_total(host):
    limits = _limits("--host", host, "--max-games", "300")
    assert (limits.max_per_client, limits.max_per_network, limits.max_sessions) == (300, 300, 300)


def test_public_host_caps_each_address_and_network():
    limits = _limits("--host", "0.0.0.0")
    assert (limits.max_per_client, limits.max_per_network) == (20, 60)


def test_caps_given_are_kept_on_any_host():
    limits = _limits("--host", "127.0.0.1", "--max-games-per-client", "3",
                     "--max-games-per-network", "5")
    assert (limits.max_per_client, limits.max_per_network) == (3, 5)


def test_a_cap_below_one_is_refused_by_name():
    args = build_parser().parse_args(["serve", "--max-games-per-client", "0"])
    with pytest.raises(ValueError, match="--max-games-per-client must be at least 1"):
        settings_from_arguments(args)
