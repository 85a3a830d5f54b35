// What Telegram gives the page: the signed initData and the theme. Telegram's script
// (telegram-web-app.js) is optional: without it both are read from the URL's hash, where
// Telegram puts them (#tgWebAppData=...&tgWebAppThemeParams=...).

function hashParams() {
  return new URLSearchParams(location.hash.slice(1));
}

function webApp() {
  return (window.Telegram && window.Telegram.WebApp) || null;
}

/** The initData query string to send in `hello`, or "" when there is none. */
export function initData() {
  const app = webApp();
  if (app && app.initData) return app.initData;
  return hashParams().get("tgWebAppData") || "";
}

/** The table id from the opening link (`?t=12`); the server checks it against the user. */
export function tableId() {
  const raw = new URLSearchParams(location.search).get("t");
  return raw && /^\d+$/.test(raw) ? Number(raw) : null;
}

function hashTheme() {
  const raw = hashParams().get("tgWebAppThemeParams");
  if (!raw) return {};
  try {
    const theme = JSON.parse(raw);
    return theme && typeof theme === "object" ? theme : {};
  } catch {
    return {};
  }
}

// Telegram's theme keys -> the page's CSS variables (style.css has defaults for both schemes)
const THEME_VARS = {
  bg_color: "--bg", text_color: "--text", hint_color: "--hint", link_color: "--link",
  button_color: "--button", button_text_color: "--button-text",
  secondary_bg_color: "--bg2", section_bg_color: "--section",
  destructive_text_color: "--danger", accent_text_color: "--accent",
};

function isColour(value) {
  return typeof value === "string" && /^#[0-9a-fA-F]{3,8}$/.test(value);
}

/** Perceived brightness 0..1 of "#rrggbb", to tell a dark theme from a light one. */
function brightness(hex) {
  const full = hex.length === 4 ? hex.replace(/\w/g, (c) => c + c) : hex.slice(0, 7);
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(full.slice(i, i + 2), 16) / 255);
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

/** Applies Telegram's colours (hash first, then the script's live ones) to the page. */
export function applyTheme() {
  const app = webApp();
  const theme = { ...hashTheme(), ...((app && app.themeParams) || {}) };
  const root = document.documentElement;
  for (const [key, name] of Object.entries(THEME_VARS)) {
    if (isColour(theme[key])) root.style.setProperty(name, theme[key]);
  }
  let scheme = app && app.colorScheme;
  if (!scheme && isColour(theme.bg_color)) scheme = brightness(theme.bg_color) < 0.5 ? "dark" : "light";
  if (scheme) root.dataset.scheme = scheme;  // without it, prefers-color-scheme decides
}

let told = false;  // Telegram is told once, whether its script came before or after the page's

/** Tells Telegram the page is ready, and follows theme changes. */
export function startTelegram() {
  applyTheme();
  const app = webApp();
  if (!app || told) return;
  told = true;
  app.ready();
  app.expand();
  app.onEvent("themeChanged", applyTheme);
}

/** Light haptic feedback on a tap, where Telegram offers it. */
export function tapFeedback() {
  const app = webApp();
  if (app && app.HapticFeedback) app.HapticFeedback.selectionChanged();
}
