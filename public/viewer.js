// The document viewer of the link page: renders every page of the document (pdf.js, served
// by the service itself) and reports the person's active reading time per page.
//
// Active means: the tab is visible, the window has focus, and there was input (a scroll, a
// key, the pointer) within the last minute. Each second of active time counts for the page
// most in view. The page reports every 10 seconds, and once more when the person leaves
// (navigator.sendBeacon), so a closed tab loses at most the last 10 seconds.

const REPORT_EVERY_MS = 10_000;
const IDLE_AFTER_MS = 60_000;

const container = document.getElementById('pages');
if (container) {
  const pages = [...container.querySelectorAll('[data-page]')];
  track(container, pages);
  if (container.dataset.type === 'application/pdf') renderPdf(container, pages);
}

async function renderPdf(container, pages) {
  const pdfjs = await import('/assets/pdfjs/pdf.min.mjs');
  pdfjs.GlobalWorkerOptions.workerSrc = '/assets/pdfjs/pdf.worker.min.mjs';
  let pdf;
  try {
    pdf = await pdfjs.getDocument({
      url: container.dataset.file,
      isEvalSupported: false,
      standardFontDataUrl: '/assets/pdfjs/standard_fonts/',
      disableRange: true,
    }).promise;
  } catch {
    container.insertAdjacentHTML(
      'beforebegin',
      '<p class="alert" role="alert">This document could not be opened.</p>',
    );
    return;
  }
  const first = await pdf.getPage(1);
  const base = first.getViewport({ scale: 1 });
  for (const element of pages) element.style.aspectRatio = `${base.width} / ${base.height}`;

  const rendered = new Set();
  const render = async (element) => {
    const number = Number(element.dataset.page);
    if (rendered.has(number) || number > pdf.numPages) return;
    rendered.add(number);
    const page = await pdf.getPage(number);
    const unscaled = page.getViewport({ scale: 1 });
    const scale = (element.clientWidth / unscaled.width) * (window.devicePixelRatio || 1);
    const viewport = page.getViewport({ scale });
    const canvas = document.createElement('canvas');
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    canvas.setAttribute('aria-hidden', 'true');
    element.style.aspectRatio = `${unscaled.width} / ${unscaled.height}`;
    await page.render({ canvas, canvasContext: canvas.getContext('2d'), viewport }).promise;
    element.querySelector('.page-loading')?.remove();
    element.prepend(canvas);
    element.classList.add('rendered');
  };
  // Pages are drawn as they come near the screen, so a long document opens at once.
  const near = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) if (entry.isIntersecting) render(entry.target);
    },
    { rootMargin: '1200px 0px' },
  );
  for (const element of pages) near.observe(element);
}

function track(container, pages) {
  const url = container.dataset.report;
  const token = container.dataset.token;
  if (!url || !token || pages.length === 0) return;

  const visible = new Map();
  const inView = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) visible.set(Number(entry.target.dataset.page), entry.intersectionRatio);
    },
    { threshold: [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1] },
  );
  for (const element of pages) inView.observe(element);
  const current = () => {
    let best = 0;
    let page = 1;
    for (const [number, ratio] of visible) {
      if (ratio > best) [best, page] = [ratio, number];
    }
    return best > 0 ? page : undefined;
  };

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
  const active = () =>
    document.visibilityState === 'visible' && document.hasFocus() && Date.now() - lastInput < IDLE_AFTER_MS;

  let pending = {};
  let done = false;
  setInterval(() => {
    const page = current();
    if (!done && page !== undefined && active()) pending[page] = (pending[page] ?? 0) + 1;
  }, 1000);

  const body = (final) => JSON.stringify({ token, pages: pending, final });
  const send = async () => {
    if (done) return;
    const sent = pending;
    pending = {};
    // Not counted (no answer, or the service was busy): sent again with the next report.
    const keep = () => {
      for (const [page, seconds] of Object.entries(sent)) pending[page] = (pending[page] ?? 0) + seconds;
    };
    try {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ token, pages: sent, final: false }),
        keepalive: true,
      });
      // The view is completed, or no longer this page's to report (its link closed): stop.
      if (answer.status === 409 || answer.status === 404 || answer.status === 410) done = true;
      else if (!answer.ok) keep();
    } catch {
      keep();
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
    navigator.sendBeacon(url, new Blob([body(true)], { type: 'text/plain' }));
  });
}
