// The dashboard's only script: local times, the copy button, auto-submitting selects. Pages work without it.
(function () {
  'use strict';
  var fmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  function local(iso) {
    var d = new Date(iso);
    return isNaN(d.getTime()) ? '' : fmt.format(d);
  }
  function ready() {
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
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
