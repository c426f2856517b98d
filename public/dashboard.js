// The dashboard's few enhancements; every page works without them. No inline script: the
// CSP allows only this origin's files.

// Charts: each <canvas data-chart> holds its figures (also in an HTML table on the page).
if (window.Chart) {
  for (const canvas of document.querySelectorAll('canvas[data-chart]')) {
    const spec = JSON.parse(canvas.dataset.chart);
    // One series (label, values), or several (series: [{ label, values }]) told apart by colour.
    const series = spec.series ?? [{ label: spec.label, values: spec.values }];
    const colours = ['#64748b', '#1d4ed8'];
    new window.Chart(canvas, {
      type: spec.type === 'line' ? 'line' : 'bar',
      data: {
        labels: spec.labels,
        datasets: series.map((s, i) => {
          const colour = series.length > 1 ? colours[i % colours.length] : '#1d4ed8';
          return { label: s.label, data: s.values, backgroundColor: colour, borderColor: colour, tension: 0 };
        }),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: series.length > 1 } },
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
  }
}

// Copy buttons: an address or a key shown once.
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(button.dataset.copy);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy';
    }
    setTimeout(() => {
      button.textContent = 'Copy';
    }, 2000);
  });
}

// Dangerous buttons ask first.
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
}

// Uploads show their progress: the same form, sent with XMLHttpRequest.
for (const form of document.querySelectorAll('form[data-upload]')) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const progress = form.querySelector('progress');
    const button = form.querySelector('button[type="submit"]');
    const request = new XMLHttpRequest();
    request.open('POST', form.action);
    request.setRequestHeader('Accept', 'application/json');
    request.upload.addEventListener('progress', (e) => {
      if (!e.lengthComputable || !progress) return;
      progress.hidden = false;
      progress.value = Math.round((e.loaded / e.total) * 100);
    });
    request.addEventListener('load', () => {
      if (request.status >= 200 && request.status < 300) {
        window.location.assign(`${window.location.pathname}?done=uploaded`);
      } else {
        // The answer is a page that says what was wrong: show it.
        document.open();
        document.write(request.responseText);
        document.close();
      }
    });
    request.addEventListener('error', () => {
      if (button) button.disabled = false;
      window.alert('The upload did not reach the server. Please try again.');
    });
    if (button) button.disabled = true;
    request.send(new FormData(form));
  });
}

// The live activity of the last hour: pushed by the server as it is committed (server-sent
// events); where EventSource is missing, asked for every 15 seconds instead.
const live = document.getElementById('live');
if (live?.dataset.source) {
  const verbs = {
    view: 'opened',
    visit: 'visited through',
    download: 'downloaded',
    refused: 'was refused by the lists of',
    download_refused: 'was refused a download of',
  };
  const show = (data) =>
    live.replaceChildren(
      ...(data.length === 0
        ? [
            Object.assign(document.createElement('li'), {
              className: 'empty',
              textContent: 'Nothing in the last hour.',
            }),
          ]
        : data.map((item) => {
            const li = document.createElement('li');
            const time = document.createElement('time');
            time.dateTime = item.at;
            time.textContent = item.time;
            const who = document.createElement('strong');
            who.textContent = item.who;
            li.append(
              time,
              ' ',
              who,
              ` ${verbs[item.kind] ?? item.kind} ${item.what}${item.room ? ` (${item.room})` : ''}`,
            );
            return li;
          })),
    );
  if ('EventSource' in window && live.dataset.stream) {
    const stream = new EventSource(live.dataset.stream);
    stream.addEventListener('activity', (event) => show(JSON.parse(event.data).data));
    live.dataset.live = 'stream';
  } else {
    setInterval(async () => {
      try {
        const answer = await fetch(live.dataset.source, { headers: { accept: 'application/json' } });
        if (answer.ok) show((await answer.json()).data);
      } catch {
        // Offline for a moment: the next turn tries again.
      }
    }, 15_000);
  }
}

// A refusal page's "Go back": the page the person came from, when the browser has one.
for (const back of document.querySelectorAll('[data-back]')) {
  if (history.length < 2) continue;
  back.hidden = false;
  back.addEventListener('click', () => history.back());
}

// A form sent back: its error summary takes the focus, so a screen reader reads it first.
document.querySelector('.error-summary')?.focus();

// Moving a document up or down without reloading the page: the move is sent as the form
// would send it, then the list is drawn again from the page's own HTML, and the focus stays
// on the same document's button. Without this script the forms work as they are.
const reorder = document.querySelector('[data-reorder]');
if (reorder) {
  reorder.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.action.endsWith('/move')) return;
    event.preventDefault();
    const direction = new FormData(form).get('direction');
    const moved = await fetch(form.action, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(new FormData(form)).toString(),
    });
    if (!moved.ok) {
      form.submit();
      return;
    }
    const page = await fetch(location.pathname, { headers: { accept: 'text/html' } });
    const fresh = new DOMParser()
      .parseFromString(await page.text(), 'text/html')
      .querySelector('[data-reorder]');
    if (!fresh) return location.reload();
    reorder.replaceChildren(...fresh.childNodes);
    const again =
      reorder.querySelector(`form[action="${new URL(form.action).pathname}"] input[value="${direction}"]`)
        ?.form ?? reorder.querySelector(`form[action="${new URL(form.action).pathname}"]`);
    again?.querySelector('button')?.focus();
  });
}
