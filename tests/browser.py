"""Headless Chromium for the HTML page tests (series viewer, duplicate report)."""

from __future__ import annotations

import contextlib
import os
import shutil

import pytest


def chromium_driver(what: str, window: str = "1300,1350"):
    """A headless Chromium driven by Selenium, or skip naming what is missing; with
    HOLDEMJAX_REQUIRE_BROWSER set (CI), a missing browser is a failure instead."""
    missing = []
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium (pip install selenium)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if chromium is None:
        missing.append("chromium (apt-get install chromium)")
    if chromedriver is None:
        missing.append("chromedriver (apt-get install chromium-driver)")
    if missing:
        message = f"the {what} browser tests need " + ", ".join(missing)
        if os.environ.get("HOLDEMJAX_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium  # with both paths given, Selenium downloads nothing
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={window}"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(chromedriver), options=options)


@contextlib.contextmanager
def browser(what: str, window: str, load_timeout: float = 20):
    """`chromium_driver` with a page-load timeout, quit on exit (a module fixture's body)."""
    driver = chromium_driver(what, window)
    driver.set_page_load_timeout(load_timeout)
    try:
        yield driver
    finally:
        driver.quit()
