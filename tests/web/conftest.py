"""The browser tests' server and browser: `suburbia serve` as a process on a free
loopback port with its SQLite store, and Debian's headless Chromium driven by playwright
(no browser download); each test gets a fresh page whose errors fail it."""

import os
import subprocess
import sys
import time
import urllib.request

import pytest

from loopback_sockets import free_loopback_port
from repository import REPO
from web_fixtures import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`suburbia serve` on a free loopback port; its URL once it answers."""
    port = free_loopback_port()
    folder = tmp_path_factory.mktemp("serve")
    env = dict(os.environ, OMP_NUM_THREADS="1", XDG_CONFIG_HOME=str(folder))
    process = subprocess.Popen(
        [sys.executable, "-m", "suburbia_env.apps.cli", "serve", "--port", str(port),
         "--models", str(REPO / "models"), "--secret-file", str(folder / "secret.key"),
         "--store", str(folder / "games.sqlite3")],
        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300  # the engine's kernels may compile at start-up
    while True:
        try:
            urllib.request.urlopen(url + "/api/options", timeout=2).read()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError("suburbia serve did not start:\n" + process.stdout.read())
            time.sleep(0.3)
    yield url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"Chromium is missing: the browser tests drive Debian's {CHROMIUM} (no "
                    f"browser download); install it with `apt-get install chromium "
                    f"fonts-dejavu-core` (as root, after `apt-get update`; .ci/run does this)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright's Python client is missing: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, accept_downloads=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text)  # the page's CSP holds
            if "Content Security Policy" in message.text else None)
    yield page
    context.close()
    assert not errors, errors
