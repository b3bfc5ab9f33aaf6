"""Debian's Chromium, headless, driven by Selenium through Debian's chromedriver (no browser
download): what the browser tests share."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def driver(*flags):
    """A headless Chromium that plays media without a user gesture, with `flags` added."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--autoplay-policy=no-user-gesture-required") + flags:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
