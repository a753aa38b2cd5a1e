//! The headless browser the dashboard and what-if report tests use: Chromium renders
//! a page with script, the test reads the rendered DOM and saves a screenshot.

use placer_testkit::browser::Browser;
use std::time::Duration;

/// A page whose text only exists once its script has run: the browser must execute JavaScript,
/// and `wait_text` must see the DOM after it.
#[test]
fn chromium_renders_a_scripted_page_and_saves_a_screenshot() {
    let dir = tempfile_dir();
    let page = dir.join("page.html");
    std::fs::write(
        &page,
        "<!doctype html><html><body><h1 id=t>loading</h1><ul><li>a</li><li>b</li></ul>\
         <script>setTimeout(() => { document.getElementById('t').textContent = 'ready ' + (6 * 7); }, 200);</script>\
         </body></html>",
    )
    .unwrap();
    let mut browser = Browser::start().expect("headless Chromium (bash scripts/deps installs it)");
    browser.goto(&format!("file://{}", page.display())).unwrap();
    assert_eq!(browser.wait_text("#t", "ready", Duration::from_secs(20)).unwrap(), "ready 42");
    assert_eq!(browser.texts("li").unwrap(), vec!["a", "b"]);
    assert!(browser.text("#missing").is_err());
    let png = dir.join("shot.png");
    browser.screenshot(&png).unwrap();
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("placer-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
