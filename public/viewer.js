// The document viewer of the link page. Every page is an image the service rendered; this
// script adds the counter, previous and next, jump, zoom, full screen, arrow keys and swipe,
// retries a page the service is still drawing, and reports the person's active reading time.
//
// Active means: the tab is visible, the window has focus, there was input (a scroll, a key,
// the pointer) within the last minute, and the page most in view has been drawn on screen.
// Each such second counts for that page. The page reports every 10 seconds, and once more
// when the person leaves (navigator.sendBeacon); each report carries an id, so one sent again
// after a lost answer is counted once.

const REPORT_EVERY_MS = 10_000;
const IDLE_AFTER_MS = 60_000;
const ZOOMS = [0.6, 0.8, 1, 1.25, 1.5, 2];

/** A random id (crypto.randomUUID needs a secure context; getRandomValues does not). */
const newId = () =>
  [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');

const container = document.getElementById('pages');
if (container) {
  const pages = [...container.querySelectorAll('[data-page]')];
  followHeadHeight();
  const shown = currentPage(pages);
  retryPending(pages);
  controls(pages, shown);
  track(container, pages, shown);
  container.dataset.ready = 'true';
}

/**
 * Keeps --viewer-head at the height of the sticky bar above the pages, which wraps onto more
 * rows as the window narrows, so a page turned to lands just below the bar at any width.
 */
function followHeadHeight() {
  const head = document.querySelector('.viewer-head');
  if (!head) return;
  const set = () => document.documentElement.style.setProperty('--viewer-head', `${head.offsetHeight}px`);
  new ResizeObserver(set).observe(head);
  set();
}

/** Which page is most in view, kept up to date; the counter and thumbnails follow it. */
function currentPage(pages) {
  const ratios = new Map();
  const counter = document.querySelector('[data-counter]');
  const thumbs = new Map(
    [...document.querySelectorAll('[data-thumb]')].map((a) => [Number(a.dataset.thumb), a]),
  );
  const state = { page: 1, visible: false };
  // The page the counter and thumbnails show: a step sets state.page to where it is going
  // before the scroll gets there, so the page is shown when the scroll reaches it.
  let marked = 1;
  const update = () => {
    let best = 0;
    let page = state.page;
    for (const [number, ratio] of ratios) {
      if (ratio > best || (ratio === best && ratio > 0 && number < page)) [best, page] = [ratio, number];
    }
    state.visible = best > 0;
    state.page = page;
    if (page === marked) return;
    thumbs.get(marked)?.removeAttribute('aria-current');
    marked = page;
    const thumb = thumbs.get(page);
    if (thumb) {
      thumb.setAttribute('aria-current', 'page');
      thumb.scrollIntoView({ block: 'nearest' });
    }
    if (counter) counter.textContent = `${page} / ${pages.length}`;
  };
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) ratios.set(Number(entry.target.dataset.page), entry.intersectionRatio);
      update();
    },
    { threshold: [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1] },
  );
  for (const element of pages) observer.observe(element);
  thumbs.get(1)?.setAttribute('aria-current', 'page');
  return state;
}

/**
 * A page the service has not drawn yet (503) is asked for again a moment later, in the pages
 * and in the thumbnails. An image whose answer came before this script ran has fired its
 * error already: it is asked for again as well.
 */
function retryPending(pages) {
  const images = [
    ...pages.map((element) => element.querySelector('img')),
    ...document.querySelectorAll('[data-thumb] img'),
  ];
  for (const image of images) {
    if (!image) continue;
    let tries = 0;
    const again = () => {
      if (tries >= 30) {
        image.closest('[data-page]')?.classList.add('failed');
        return;
      }
      tries += 1;
      setTimeout(() => {
        const url = new URL(image.currentSrc || image.src, location.href);
        url.searchParams.set('r', String(tries));
        image.removeAttribute('srcset');
        image.src = url.pathname + url.search;
      }, 2000);
    };
    image.addEventListener('error', again);
    if (image.complete && image.naturalWidth === 0) again();
  }
}

function controls(pages, shown) {
  const go = (number) => {
    const target = pages[Math.min(Math.max(number, 1), pages.length) - 1];
    if (!target) return;
    target.scrollIntoView({ block: 'start', behavior: 'smooth' });
    shown.page = Number(target.dataset.page);
  };
  const step = (by) => go(shown.page + by);
  document.querySelector('[data-go="previous"]')?.addEventListener('click', () => step(-1));
  document.querySelector('[data-go="next"]')?.addEventListener('click', () => step(1));

  const jump = document.querySelector('[data-jump]');
  jump?.addEventListener('submit', (event) => {
    event.preventDefault();
    const input = jump.querySelector('input');
    const number = Number(input.value);
    if (Number.isInteger(number) && number >= 1 && number <= pages.length) {
      go(number);
      input.value = '';
    } else {
      input.setCustomValidity(`Enter a page from 1 to ${pages.length}`);
      input.reportValidity();
      input.addEventListener('input', () => input.setCustomValidity(''), { once: true });
    }
  });

  const reader = document.querySelector('[data-reader]');
  let zoom = ZOOMS.indexOf(1);
  for (const button of document.querySelectorAll('[data-zoom]')) {
    button.addEventListener('click', () => {
      const page = shown.page;
      zoom = Math.min(Math.max(zoom + Number(button.dataset.zoom), 0), ZOOMS.length - 1);
      reader?.style.setProperty('--zoom', String(ZOOMS[zoom]));
      reader?.classList.toggle('zoomed', ZOOMS[zoom] !== 1);
      go(page);
    });
  }

  const full = document.querySelector('[data-fullscreen]');
  if (full && reader?.requestFullscreen) {
    full.addEventListener('click', () => {
      if (document.fullscreenElement) document.exitFullscreen();
      else reader.requestFullscreen().catch(() => {});
    });
    document.addEventListener('fullscreenchange', () => {
      full.textContent = document.fullscreenElement ? 'Exit full screen' : 'Full screen';
    });
  } else if (full) {
    full.hidden = true;
  }

  // Arrow keys turn pages, unless the person is typing in a field.
  document.addEventListener('keydown', (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target instanceof HTMLElement && event.target.closest('input, textarea, select')) return;
    if (event.key === 'ArrowRight' || (event.key === 'ArrowDown' && event.shiftKey)) {
      event.preventDefault();
      step(1);
    } else if (event.key === 'ArrowLeft' || (event.key === 'ArrowUp' && event.shiftKey)) {
      event.preventDefault();
      step(-1);
    }
  });

  // A sideways swipe on a phone turns a page; an up-and-down one scrolls as usual.
  let start;
  container.addEventListener(
    'touchstart',
    (event) => {
      const touch = event.changedTouches[0];
      start = event.touches.length === 1 ? { x: touch.clientX, y: touch.clientY } : undefined;
    },
    { passive: true },
  );
  container.addEventListener(
    'touchend',
    (event) => {
      const touch = event.changedTouches[0];
      if (!start || !touch) return;
      const dx = touch.clientX - start.x;
      const dy = touch.clientY - start.y;
      if (Math.abs(dx) > 60 && Math.abs(dx) > Math.abs(dy) * 1.5 && !reader?.classList.contains('zoomed')) {
        step(dx < 0 ? 1 : -1);
      }
      start = undefined;
    },
    { passive: true },
  );
}

function track(container, pages, shown) {
  const url = container.dataset.report;
  const token = container.dataset.token;
  if (!url || !token || pages.length === 0) return;

  let lastInput = Date.now();
  for (const type of ['scroll', 'wheel', 'keydown', 'pointerdown', 'pointermove', 'touchstart']) {
    window.addEventListener(
      type,
      () => {
        lastInput = Date.now();
      },
      { passive: true, capture: true },
    );
  }
  const drawn = (number) => {
    const image = pages[number - 1]?.querySelector('img');
    return Boolean(image?.complete && image.naturalWidth > 0);
  };
  const active = () =>
    document.visibilityState === 'visible' && document.hasFocus() && Date.now() - lastInput < IDLE_AFTER_MS;

  let pending = {};
  // Reports not yet answered, oldest first, each with its id; sent again as they were.
  const unsent = [];
  let done = false;
  setInterval(() => {
    if (!done && shown.visible && drawn(shown.page) && active()) {
      pending[shown.page] = (pending[shown.page] ?? 0) + 1;
    }
  }, 1000);

  const take = () => {
    if (Object.keys(pending).length > 0) {
      unsent.push({ id: newId(), pages: pending });
      pending = {};
    }
  };
  let sending = false;
  const send = async () => {
    if (done || sending) return;
    take();
    sending = true;
    try {
      while (unsent.length > 0 && !done) {
        const report = unsent[0];
        let answer;
        try {
          answer = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ token, id: report.id, pages: report.pages, final: false }),
            keepalive: true,
          });
        } catch {
          return; // no answer: sent again with the next report, under the same id
        }
        // The view is completed, or no longer this page's to report (its link closed): stop.
        if ([404, 409, 410].includes(answer.status)) done = true;
        else if (!answer.ok && answer.status !== 400) return;
        unsent.shift();
      }
    } finally {
      sending = false;
    }
  };
  setInterval(send, REPORT_EVERY_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') send();
  });
  // Leaving: the last seconds and the end of the view, even as the tab closes.
  window.addEventListener('pagehide', () => {
    if (done) return;
    done = true;
    take();
    const pagesLeft = {};
    for (const report of unsent) {
      for (const [page, seconds] of Object.entries(report.pages))
        pagesLeft[page] = (pagesLeft[page] ?? 0) + seconds;
    }
    const body = JSON.stringify({ token, id: newId(), pages: pagesLeft, final: true });
    navigator.sendBeacon(url, new Blob([body], { type: 'text/plain' }));
  });
}
