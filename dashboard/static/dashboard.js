// The dashboard's only script: local times, the copy button, auto-submitting selects, the key restrictions tester.
// Pages work without it.
(function () {
  'use strict';
  var fmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  function local(iso) {
    var d = new Date(iso);
    return isNaN(d.getTime()) ? '' : fmt.format(d);
  }
  // Phones: the navigation folds behind a "Menu" button (one header line); without the script it stays a list.
  function menu() {
    var toggle = document.querySelector('.menu-toggle');
    var nav = document.getElementById('main-nav');
    if (!toggle || !nav) return;
    document.documentElement.classList.add('has-menu');
    toggle.hidden = false;
    toggle.addEventListener('click', function () {
      var open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
      nav.classList.toggle('open', open);
    });
  }
  function ready() {
    menu();
    document.querySelectorAll('button[data-copy-text]').forEach(function (b) {
      b.addEventListener('click', function () {
        var el = document.querySelector(b.getAttribute('data-copy-text'));
        if (!el || !navigator.clipboard || !window.isSecureContext) return;
        navigator.clipboard.writeText(el.textContent).then(function () {
          b.textContent = 'Copied';
        });
      });
    });
    document.querySelectorAll('time[data-local]').forEach(function (t) {
      var text = local(t.getAttribute('datetime'));
      if (!text) return;
      t.title = t.textContent;
      t.textContent = text;
    });
    document.querySelectorAll('[data-local-of]').forEach(function (el) {
      el.textContent = local(el.getAttribute('data-local-of'));
    });
    document.querySelectorAll('button[data-copy]').forEach(function (b) {
      b.addEventListener('click', function () {
        var input = document.querySelector(b.getAttribute('data-copy'));
        if (!input) return;
        input.select();
        var done = function () {
          var note = document.querySelector('[data-copied]');
          if (note) note.hidden = false;
          b.textContent = 'Copied';
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(input.value).then(done, function () {
            document.execCommand('copy');
            done();
          });
        } else {
          document.execCommand('copy');
          done();
        }
      });
    });
    document.querySelectorAll('select[data-autosubmit]').forEach(function (s) {
      s.addEventListener('change', function () {
        s.form.submit();
      });
    });
    var restrictions = document.querySelector('form[data-restrictions]');
    if (restrictions) restrictionsTester(restrictions);
  }
  // Key restrictions (issue 15 item 4): the live tester sends the rules as typed and the sample page/address to the
  // dashboard API, which answers with the gateway's own matcher (so the tester never disagrees with enforcement).
  function restrictionsTester(form) {
    var box = document.querySelector('[data-tester]');
    if (!box) return;
    box.hidden = false;
    var url = form.getAttribute('data-test-url');
    var csrf = form.querySelector('input[name="_csrf"]').value;
    var refs = form.querySelector('textarea[name="referrers"]');
    var cidrs = form.querySelector('textarea[name="cidrs"]');
    var page = box.querySelector('[data-test-page]');
    var address = box.querySelector('[data-test-address]');
    var timer = null;
    var seq = 0;
    function verdict(name, v) {
      var el = box.querySelector('[data-verdict="' + name + '"]');
      el.className = 'verdict' + (v ? (v.allowed ? ' allowed' : ' refused') : '');
      el.textContent = v ? v.reason : '';
    }
    function lineErrors(name, checks, errors) {
      var list = form.querySelector('[data-line-errors="' + name + '"]');
      list.textContent = '';
      var add = function (text) {
        var li = document.createElement('li');
        li.textContent = text;
        list.appendChild(li);
      };
      errors.forEach(function (e) {
        if (e.field === name) add(e.message);
      });
      checks.forEach(function (c, i) {
        if (c.error) add('Line ' + (i + 1) + ': ' + c.error);
      });
    }
    function run() {
      var mine = ++seq;
      var body = JSON.stringify({
        referrers: refs.value,
        cidrs: cidrs.value,
        page: page.value,
        address: address.value,
      });
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        credentials: 'same-origin',
        body: body,
      })
        .then(function (r) {
          return r.ok ? r.json() : null;
        })
        .then(function (a) {
          if (!a || mine !== seq) return;
          lineErrors('referrers', a.referrers, a.errors);
          lineErrors('cidrs', a.cidrs, a.errors);
          verdict('page', a.page);
          verdict('address', a.address);
          box.setAttribute('data-answered', String(mine));
        })
        .catch(function () {});
    }
    function later() {
      clearTimeout(timer);
      timer = setTimeout(run, 200);
    }
    [refs, cidrs, page, address].forEach(function (el) {
      el.addEventListener('input', later);
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
