/* Sandboard's Swagger UI set-up: a username/password form for the JWT scheme, API keys prefixed for
 * the user, the JWT winning when both are set, and the app's own session used without asking. */
(function () {
  'use strict';
  var JWT = 'HttpLoginForm';
  var KEY = 'ApiKeyForm';
  var SESSION_KEY = 'sandboard.auth';

  function LoginForm(props) {
    var React = props.system.React;
    var h = React.createElement;
    var state = React.useState({ username: '', password: '', error: null, busy: false });
    var form = state[0];
    var setForm = state[1];
    var authorized = props.authorized && props.authorized.getIn([props.name, 'value']);
    if (authorized) return h(props.Original, props.originalProps);

    function update(field) {
      return function (e) {
        var next = Object.assign({}, form);
        next[field] = e.target.value;
        setForm(next);
      };
    }
    function login() {
      setForm(Object.assign({}, form, { busy: true, error: null }));
      fetch('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ username: form.username, password: form.password }),
      })
        .then(function (res) {
          return res.json().then(function (body) {
            if (!res.ok) throw new Error(body.message || 'Login failed (' + res.status + ')');
            var payload = {};
            payload[props.name] = { name: props.name, schema: props.schema, value: 'Bearer ' + body.token };
            props.system.authActions.authorize(payload);
          });
        })
        .catch(function (err) {
          setForm(Object.assign({}, form, { busy: false, error: err.message }));
        });
    }
    function onKeyDown(e) {
      if (e.key === 'Enter') {
        e.preventDefault();
        login();
      }
    }
    return h(
      'div',
      { className: 'sandboard-login', 'data-testid': 'explorer-login-form' },
      h('h4', null, 'JWT: log in with username and password'),
      h(
        'label',
        null,
        'Username',
        h('input', {
          type: 'text',
          name: 'sandboard-username',
          autoComplete: 'username',
          value: form.username,
          onChange: update('username'),
          onKeyDown: onKeyDown,
        }),
      ),
      h(
        'label',
        null,
        'Password',
        h('input', {
          type: 'password',
          name: 'sandboard-password',
          autoComplete: 'current-password',
          value: form.password,
          onChange: update('password'),
          onKeyDown: onKeyDown,
        }),
      ),
      form.error ? h('div', { className: 'errors', role: 'alert' }, form.error) : null,
      h(
        'div',
        { className: 'auth-btn-wrapper' },
        h(
          'button',
          {
            type: 'button',
            className: 'btn modal-btn auth authorize button',
            disabled: form.busy,
            onClick: login,
          },
          'Log in',
        ),
      ),
    );
  }

  var SandboardAuthPlugin = function () {
    return {
      wrapComponents: {
        apiKeyAuth: function (Original, system) {
          return function (props) {
            if (props.name !== JWT) return system.React.createElement(Original, props);
            return system.React.createElement(
              LoginForm,
              Object.assign({}, props, { system: system, Original: Original, originalProps: props }),
            );
          };
        },
      },
    };
  };

  function authHeader() {
    // The first request (the OpenAPI document) goes out before SwaggerUIBundle has returned window.ui.
    if (!window.ui) return null;
    var auth = window.ui.authSelectors.authorized().toJS();
    var jwt = auth[JWT] && auth[JWT].value;
    var key = auth[KEY] && auth[KEY].value;
    if (jwt) return /^Bearer /i.test(jwt) ? jwt : 'Bearer ' + jwt;
    if (key) return /^ApiKey /i.test(key) ? key : 'ApiKey ' + key;
    return null;
  }

  function useSession(token) {
    if (token) window.ui.preauthorizeApiKey(JWT, 'Bearer ' + token);
  }

  // The Authorize dialog opens at its first form, not scrolled down to the last form's autofocused field
  // (Swagger UI autofocuses each form's first input, so the Edge form at the bottom won).
  new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      change.addedNodes.forEach(function (node) {
        var content = node.querySelector && node.querySelector('.modal-ux-content');
        if (!content) return;
        requestAnimationFrame(function () {
          var first = content.querySelector('input, button:not([disabled])');
          if (first) first.focus({ preventScroll: true });
          content.scrollTop = 0;
        });
      });
    });
  }).observe(document.getElementById('swagger-ui'), { childList: true, subtree: true });

  // Light or dark: the app embedding the explorer says which; opened on its own, the system's.
  var systemDark = window.matchMedia('(prefers-color-scheme: dark)');
  var themeFromApp = false;
  function setTheme(scheme) {
    document.documentElement.setAttribute('data-theme', scheme === 'dark' ? 'dark' : 'light');
  }
  setTheme(systemDark.matches ? 'dark' : 'light');
  systemDark.addEventListener('change', function (e) {
    if (!themeFromApp) setTheme(e.matches ? 'dark' : 'light');
  });

  window.ui = SwaggerUIBundle({
    url: '/v3/api-docs',
    dom_id: '#swagger-ui',
    // no deep links: a link inside each operation's toggle button is a control nested in a control
    deepLinking: false,
    persistAuthorization: false,
    tryItOutEnabled: true,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl, SandboardAuthPlugin],
    // without the standalone top bar: its URL field has no label, and this page shows one document
    layout: 'BaseLayout',
    requestInterceptor: function (req) {
      var header = authHeader();
      if (header) req.headers['X-Authorization'] = header;
      return req;
    },
    onComplete: function () {
      try {
        var saved = JSON.parse(window.sessionStorage.getItem(SESSION_KEY) || 'null');
        if (saved && saved.token) useSession(saved.token);
      } catch {
        /* no session to reuse */
      }
      document.body.setAttribute('data-explorer-ready', 'true');
    },
  });

  // The app embedding the explorer sends its fresh token after each silent refresh.
  window.addEventListener('message', function (event) {
    if (event.origin !== window.location.origin) return;
    if (event.data && event.data.type === 'sandboard:session' && event.data.token)
      useSession(event.data.token);
    if (event.data && event.data.type === 'sandboard:theme') {
      themeFromApp = true;
      setTheme(event.data.scheme);
    }
  });
})();
