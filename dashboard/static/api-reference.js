// The API reference page: render the customer API's OpenAPI document with Redoc (served from node_modules).
/* global Redoc */
(function () {
  var el = document.getElementById('reference');
  if (!el || typeof Redoc === 'undefined') return;
  Redoc.init(el.getAttribute('data-spec'), { hideDownloadButton: false, expandResponses: '200' }, el);
})();
