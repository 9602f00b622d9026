"""The page in headless Chromium (Debian's, driven by Playwright) against the --sim board: hands on
the virtual table are filmed by the simulated camera, read by the real vision code, recorded, lit on
the emulated LED firmware, and shown on the page."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from controller.service.config import Settings
from controller.service.runner import build_board
from controller.tak import Ply
from controller.web.app import create_app
from tests.web.server import LiveServer

TOKEN = "page-token-0123456789abcdef"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def sim_server(tmp_path_factory):
    data = tmp_path_factory.mktemp("page")
    settings = Settings(data_dir=data, camera="sim", serial="sim", sim=True, size=5, token=TOKEN)
    holder = {}

    def make_app():
        holder["board"] = build_board(settings)
        return create_app(holder["board"], settings, token=TOKEN)

    server = LiveServer(make_app).start(timeout=60)
    server.board = holder["board"]
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def tap_square(page, board_id: str, square: str) -> None:
    page.locator(f"#{board_id} g[data-square={square}]").click()


def start_game_with(page, squares: tuple[str, ...]) -> None:
    """A new 5x5 game on the page, nobody playing the computer, and a flat placed on the
    virtual table on each of `squares` in turn, each seen recorded."""
    page.click("#new-game")
    page.select_option("#new-game-form select[name=size]", "5")
    page.select_option("#new-game-form select[name=computer]", "")
    page.click("#new-game-ok")
    expect(page.locator("#state")).to_have_text("recording")
    # The last test's game began with a1 too, and its move list shows until the page hears of
    # the new game: tapping e5 on seeing "a1" there put down the colour of a game with no ply
    # yet (the first ply's), and the board was illegal (it failed so in full-suite runs).
    expect(page.locator("#moves .ply")).to_have_count(0)
    for n, square in enumerate(squares):
        tap_square(page, "sim-board", square)
        expect(page.locator("#moves .ply").nth(n)).to_have_text(square, timeout=20_000)


def open_page(browser, server):
    """The page in a fresh browser context, the token already stored -> (context, page, the
    page's uncaught errors as they come)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1500})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url)
    page.evaluate(f"localStorage.setItem('takboard.token', '{TOKEN}')")
    page.reload()
    # The page's first look at the game drawn before anything is clicked: its banners come in
    # above the game's buttons and move them, and a click that lands as they come hits a banner
    # (a full-suite run: the computer's game of the test before left its banner, and "New game"
    # opened nothing). Once the state pill shows the server's game, they are drawn.
    import httpx

    game = httpx.get(f"{server.url}/api/game", timeout=10)
    shown = game.json()["state"] if game.status_code == 200 else "none"
    expect(page.locator("#state")).to_have_attribute("data-state", shown)
    return context, page, errors


@pytest.mark.slow
def test_a_game_played_on_the_virtual_board_shows_up_on_the_page(sim_server, browser, tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 1500}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(sim_server.url)
    expect(page.locator("#sim-panel")).to_be_visible()

    # the token, asked once
    page.click("#token-button")
    page.fill("#token-input", TOKEN)
    page.click("#token-ok")

    page.click("#new-game")
    page.select_option("#new-game-form select[name=size]", "5")
    page.fill("#new-game-form input[name=white]", "Ann")
    page.fill("#new-game-form input[name=black]", "Bob")
    page.click("#new-game-ok")
    expect(page.locator("#players")).to_contain_text("Ann vs Bob")
    expect(page.locator("#state")).to_have_text("recording")

    # hands on the table: the camera has to see these
    tap_square(page, "sim-board", "a1")  # white's first ply: a black flat (colour: to move)
    expect(page.locator("#moves .ply").nth(0)).to_have_text("a1", timeout=20_000)
    tap_square(page, "sim-board", "e5")
    expect(page.locator("#moves .ply").nth(1)).to_have_text("e5", timeout=20_000)
    # the LEDs as lit: the last move glows orange on e5 only
    led = page.locator("#leds .led[data-square=e5]")
    expect(led).to_have_class(re.compile(r"\blit\b"), timeout=10_000)
    expect(led).to_have_attribute("data-colour", "#ff6e00")
    expect(page.locator("#leds .led.lit")).to_have_count(1)
    # the camera view with the grid drawn over it
    expect(page.locator("#camera-overlay polygon")).to_have_count(1, timeout=10_000)
    # and where the camera is: the sim's mount, 30 degrees from vertical, is a good one; its
    # lamp glares on c3 and b3 (vision/glare.py): said, and the two squares ringed on the view
    expect(page.locator("#camera-mount")).to_contain_text(re.compile(r"camera 3\d° from vertical"))
    mount = page.locator("#camera-mount")
    expect(mount).to_contain_text("a light reflects off the board on c3, b3")
    expect(mount).to_have_class(re.compile(r"\bwarn\b"))
    expect(page.locator("#camera-overlay circle.glare")).to_have_count(2)
    expect(page.locator("#camera-overlay circle.glare[data-square=c3]")).to_have_count(1)
    # and, with e5's light flat down, how far the light pieces stand out from the board
    expect(page.locator("#camera-mount")).to_contain_text(re.compile(r"light pieces ΔE \d+"))

    # an ambiguous ply, from the camera: two pieces put down at once (no legal ply explains
    # that), then one taken back. The board now shows one ply, but one made while the board did
    # not match the game is never recorded quietly: the tracker asks, the banner offers the
    # candidates, one tap confirms.
    tap_square(page, "sim-board", "c2")
    tap_square(page, "sim-board", "d2")
    expect(page.locator(".banner.illegal, .banner.desync")).to_be_visible(timeout=20_000)
    page.check("input[name=tool][value=remove]")
    tap_square(page, "sim-board", "d2")
    banner = page.locator(".banner.ambiguity")
    expect(banner).to_be_visible(timeout=20_000)
    expect(page.locator("#moves .ply")).to_have_count(2)  # asked, not recorded
    expect(banner).to_contain_text("did not match the game just before")  # and why
    expect(banner.get_by_role("button", name="none: nothing was played")).to_be_visible()
    expect(banner).to_contain_text("plies made meanwhile are recorded once it is")
    banner.get_by_role("button", name="c2", exact=True).click()
    expect(page.locator("#moves .ply").nth(2)).to_have_text("c2", timeout=10_000)
    expect(banner).to_have_count(0)

    # download the PTN
    with page.expect_download() as info:
        page.click("#download")
    download = info.value
    assert re.fullmatch(r"takboard-game-\d+\.ptn", download.suggested_filename)
    text = Path(download.path()).read_text()
    assert '[Player1 "Ann"]' in text and "1. a1 e5" in text and "2. c2" in text
    assert page.locator("#ninja").get_attribute("href").startswith("https://ptn.ninja/%5B")

    # two pieces put down at once: no legal ply explains that; the banner's one-tap fix lays the
    # table out as recorded, and the warning goes away once the camera sees it right
    page.check("input[name=tool][value=place]")
    tap_square(page, "sim-board", "c4")
    tap_square(page, "sim-board", "d4")
    problem = page.locator(".banner.illegal, .banner.desync")
    expect(problem).to_be_visible(timeout=20_000)
    expect(problem).to_contain_text("c4")
    expect(page.locator("#state")).to_have_text(re.compile("illegal|desync"))
    expect(page.locator("#board rect[stroke='var(--bad)']")).to_have_count(2)
    problem.get_by_role("button", name="Put pieces back").click()
    expect(problem).to_have_count(0, timeout=20_000)
    expect(page.locator("#state")).to_have_text("recording")
    expect(page.locator("#moves .ply")).to_have_count(3)

    # asked about a ply, the player lifts the piece again before answering: the board is as
    # before the question, so the question goes (it was an Illegal alarm and a stale banner)
    tap_square(page, "sim-board", "b3")
    tap_square(page, "sim-board", "b4")
    expect(problem).to_be_visible(timeout=20_000)
    page.check("input[name=tool][value=remove]")
    tap_square(page, "sim-board", "b4")
    expect(banner).to_be_visible(timeout=20_000)
    tap_square(page, "sim-board", "b3")
    expect(banner).to_have_count(0, timeout=20_000)
    expect(problem).to_have_count(0)
    expect(page.locator("#state")).to_have_text("recording")
    expect(page.locator("#moves .ply")).to_have_count(3)

    # a quick reply: black's flat and white's at once, no still board between them; asked as
    # the pair, and the one tap records both
    page.check("input[name=tool][value=place]")
    page.select_option("#sim-colour", "black")
    tap_square(page, "sim-board", "b5")
    page.select_option("#sim-colour", "white")
    tap_square(page, "sim-board", "d5")
    page.select_option("#sim-colour", "auto")
    expect(banner).to_be_visible(timeout=20_000)
    expect(banner).to_contain_text("two plies at once")
    expect(page.locator("#board rect[stroke='var(--warn)']")).to_have_count(2)  # b5 and d5
    # (the page, not the banner: banners are drawn anew on every event, and an element
    # screenshot fails when its node is replaced under it)
    page.screenshot(path=str(ARTIFACTS / "page-two-plies.png"), full_page=True)
    banner.get_by_role("button", name="b5 then d5", exact=True).click()
    expect(page.locator("#moves .ply")).to_have_count(5, timeout=10_000)
    expect(page.locator("#moves .ply").nth(4)).to_have_text("d5")
    expect(banner).to_have_count(0)

    page.wait_for_timeout(1500)  # a fresh camera frame for the picture
    page.screenshot(path=str(ARTIFACTS / "page-sim-game.png"), full_page=True)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    phone_page = phone.new_page()
    phone_page.goto(sim_server.url)
    expect(phone_page.locator("#moves .ply").nth(2)).to_have_text("c2", timeout=10_000)
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width} px)"
    phone_page.screenshot(path=str(ARTIFACTS / "page-phone.png"), full_page=True)
    phone.close()
    context.close()
    assert errors == []


def test_a_catch_up_question_shows_every_ply_it_would_record(browser, tmp_path):
    """A question of the camera catching up after the board was out of sync names three plies
    per candidate: each button reads all three, and the board marks every square they touch."""
    from tests.web.conftest import TOKEN as WEB_TOKEN
    from tests.web.conftest import make_web

    web = make_web(tmp_path, sim=False)
    try:
        assert web.client.post("/api/games", json={"size": 5}).status_code == 201
        for ptn in ("a1", "e5", "c3", "c2"):
            assert web.client.post("/api/game/plies", json={"ptn": ptn}).status_code == 201
        down, d4, b4 = (Ply.from_ptn(p) for p in ("c3-", "d4", "b4"))
        web.server.call(web.board.ask(
            [down], [0.2], "caught up after the board was out of sync", [d4], [(b4,)]))
        page = browser.new_context(viewport={"width": 1280, "height": 1500}).new_page()
        page.goto(web.url)
        page.evaluate(f"localStorage.setItem('takboard.token', '{WEB_TOKEN}')")
        page.reload()
        banner = page.locator(".banner.ambiguity")
        expect(banner).to_be_visible(timeout=10_000)
        expect(banner.get_by_role("button", name="c3- then d4 then b4", exact=True)).to_be_visible()
        # c3 and c2 (the spread), d4 and b4 (the plies after it)
        expect(page.locator("#board rect[stroke='var(--warn)']")).to_have_count(4)
        page.context.close()
    finally:
        web.client.close()
        web.anon.close()
        web.server.stop()


@pytest.mark.slow
def test_camera_frame_overlay_and_hand_set_corners(sim_server):
    import httpx

    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=sim_server.url, timeout=10) as c:
        if sim_server.board.session.position is None:
            c.post("/api/games", json={"size": 5}, headers=auth)
        for _ in range(200):  # the camera's first frames (rendered and read) take a moment
            frame = c.get("/api/camera/frame.jpg")
            if frame.status_code == 200 and c.get("/api/camera").json()["overlay"].get("grid"):
                break
            time.sleep(0.1)
        assert frame.status_code == 200 and frame.content[:3] == b"\xff\xd8\xff"
        overlay = c.get("/api/camera").json()["overlay"]
        assert overlay["board_found"] and len(overlay["grid"]) == 4
        assert len(overlay["squares"]) == sim_server.board.session.position.size ** 2
        assert overlay["mount"]["advice"] == [] and 25 < overlay["mount"]["view_angle_deg"] < 35
        flat = {"corners": [[10, 10], [11, 10], [11, 11], [10, 11]]}
        r = c.put("/api/camera/calibration", json=flat, headers=auth)
        assert r.status_code == 400 and "no area" in r.json()["detail"]
        assert c.put("/api/camera/calibration", json={"corners": [[1, 2]]},
                     headers=auth).status_code == 422
        corners = {"corners": overlay["grid"]}
        assert c.put("/api/camera/calibration", json=corners).status_code == 401
        assert c.put("/api/camera/calibration", json=corners, headers=auth).status_code == 204
        assert c.delete("/api/camera/calibration", headers=auth).status_code == 204


@pytest.mark.slow
def test_playing_the_computer_from_the_page(sim_server, browser):
    """Start a game against the computer, make a ply on the table, see its answer in the banner
    (and on the LEDs), let the simulated hands make it, and see the camera record it."""
    context, page, errors = open_page(browser, sim_server)
    page.click("#new-game")
    page.select_option("#new-game-form select[name=size]", "5")
    page.select_option("#new-game-form select[name=computer]", "black")
    page.select_option("#new-game-form select[name=strength]", "easy")
    page.click("#new-game-ok")
    expect(page.locator("#players")).to_contain_text("takboard (easy)")
    expect(page.locator("#moves .ply")).to_have_count(0)  # the new game's list, not the last one's

    tap_square(page, "sim-board", "a1")  # the player's ply, made on the table
    expect(page.locator("#moves .ply").nth(0)).to_have_text("a1", timeout=20_000)
    banner = page.locator(".banner.computer")
    expect(banner).to_contain_text("The computer plays", timeout=20_000)
    wanted = sim_server.board.computer_move.ptn()
    expect(banner).to_contain_text(wanted)
    # its ply is on the LEDs as a hint: the square to place on is lit
    square = wanted.lstrip("SC")
    expect(page.locator(f"#leds .led[data-square={square}]")).to_have_class(
        re.compile(r"\blit\b"), timeout=10_000)
    page.screenshot(path=str(ARTIFACTS / "page-computer.png"), full_page=True)

    banner.get_by_role("button", name="Make it on the table").click()
    expect(page.locator("#moves .ply").nth(1)).to_have_text(wanted, timeout=20_000)
    expect(page.locator(".banner.computer")).to_have_count(0)
    context.close()
    assert errors == []


@pytest.mark.slow
def test_a_board_the_camera_reads_wrong_is_said_right_and_the_game_goes_on(sim_server, browser):
    """A piece the camera cannot see (here: taken off the virtual table, as a light flat on
    light wood goes unseen) leaves the board reported out of sync; the players say the board
    is right, the alarm ends, and the next ply the camera sees is recorded."""
    context, page, errors = open_page(browser, sim_server)
    start_game_with(page, ("a1", "e5", "c3"))
    page.check("input[name=tool][value=remove]")
    tap_square(page, "sim-board", "a1")  # the camera no longer sees ply 1's flat
    problem = page.locator(".banner.illegal, .banner.desync")
    expect(problem).to_be_visible(timeout=20_000)
    expect(problem).to_contain_text("a1")
    problem.get_by_role("button", name="The board is right").click()
    expect(problem).to_have_count(0, timeout=10_000)
    expect(page.locator("#state")).to_have_text("recording")
    page.check("input[name=tool][value=place]")
    tap_square(page, "sim-board", "d3")  # black's next flat
    expect(page.locator("#moves .ply").nth(3)).to_have_text("d3", timeout=20_000)
    expect(problem).to_have_count(0)
    context.close()
    assert errors == []


@pytest.mark.slow
def test_the_last_ply_is_corrected_from_the_move_list(sim_server, browser):
    """The camera recorded c3; the player says it was a wall: a tap on the ply in the move list,
    a tap on "Sc3". The correction stands (the camera does not record c3 again), and the next
    ply the camera sees is recorded on top of it."""
    context, page, errors = open_page(browser, sim_server)
    start_game_with(page, ("a1", "e5", "c3"))

    page.locator("#moves .ply.last").click()
    form = page.locator("#correct-ply")
    expect(form).to_be_visible()
    expect(form).to_contain_text("Ply 3 was recorded as c3")
    page.screenshot(path=str(ARTIFACTS / "page-correct.png"), full_page=True)
    form.get_by_role("button", name="Sc3", exact=True).click()
    expect(page.locator("#moves .ply").nth(2)).to_have_text("Sc3", timeout=10_000)
    expect(form).to_be_hidden()
    expect(page.locator("#board g[data-square=c3]")).to_have_count(1)
    page.wait_for_timeout(2500)  # the board stands as it was: nothing recorded again
    expect(page.locator("#moves .ply")).to_have_count(3)
    expect(page.locator("#state")).to_have_text("recording")

    tap_square(page, "sim-board", "d3")  # black's next flat
    expect(page.locator("#moves .ply").nth(3)).to_have_text("d3", timeout=20_000)
    # a typed correction that is not legal there is refused, with the reason
    page.locator("#moves .ply.last").click()
    page.fill("#correct-ply-text", "a1")
    page.locator("#correct-ply button[type=submit]").click()
    expect(page.locator("#toast")).to_contain_text("a1", timeout=5_000)
    expect(page.locator("#moves .ply").nth(3)).to_have_text("d3")
    # a later board puts d3 in doubt (the camera's second look, `CameraPipeline._apply`): the
    # page hears of it, marks the ply, says what else it may have been, and offers that first
    marked = sim_server.call(sim_server.board.mark_unsure(
        4, Ply.from_ptn("d3"), (Ply.from_ptn("d2"),), "a later board showed a piece on d2"))
    assert marked
    unsure = page.locator("#moves .ply").nth(3)
    expect(unsure).to_have_text("d3?", timeout=10_000)
    expect(unsure).to_have_attribute("title", re.compile("it may have been d2"))
    unsure.click()
    expect(page.locator("#correct-choices button").first).to_have_text("d2")
    context.close()
    assert errors == []


@pytest.mark.slow
def test_a_bug_report_is_saved_from_the_page_and_downloaded(sim_server, browser):
    import io
    import zipfile

    import httpx

    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=sim_server.url, timeout=10) as c:
        if sim_server.board.session.position is None:
            c.post("/api/games", json={"size": 5}, headers=auth)
        for _ in range(200):  # the camera has read a few frames of the game
            if len(sim_server.board.camera.capture.moments) >= 3:
                break
            time.sleep(0.1)
        # changing state needs the token; a name not from the list is refused
        assert c.post("/api/captures", json={"note": "x"}).status_code == 401
        assert c.post("/api/captures", json={"note": "x" * 501}, headers=auth).status_code == 422
        assert c.get("/api/captures/..%2Ftoken").status_code in (404, 422)
        assert c.get("/api/captures/capture-20260101-000000.zip").status_code == 404

    context, page, errors = open_page(browser, sim_server)
    page.fill("#capture-note", "the board looked fine")
    page.click("#capture-form button[type=submit]")
    link = page.locator("#capture-link")
    expect(link).to_contain_text(re.compile(r"capture-\d{8}-\d{6}.*\.zip \(\d+ readings"))
    href = link.get_attribute("href")
    context.close()
    assert errors == []

    with httpx.Client(base_url=sim_server.url, timeout=10) as c:
        listed = c.get("/api/captures").json()
        assert listed[0]["url"] == href
        got = c.get(href)
        assert got.status_code == 200 and got.headers["content-type"] == "application/zip"
        with zipfile.ZipFile(io.BytesIO(got.content)) as z:
            assert {"readings.npz", "timeline.json", "game.ptn", "about.json"} <= set(z.namelist())
            assert b"the board looked fine" in z.read("about.json")
