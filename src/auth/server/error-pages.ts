// The pages for a sign-in that cannot go on: each says what went wrong in a person's words and what to
// do, and, where the app is still waiting, offers to return to it with the OAuth error (RFC 6749
// §4.1.2.1) so the app learns why.
import { html, page } from './consent-page.js';
import type { Html } from './consent-page.js';

/** A button that posts to `action` (same origin) and returns to the app with the sign-in's error. */
export interface ReturnToApp {
  /** The app's name as it calls itself, else its client_id. */
  clientName: string;
  action: string;
  csrfToken: string;
}

const returnButton = ({ clientName, action, csrfToken }: ReturnToApp): Html =>
  html`<form method="post" action="${action}"><input type="hidden" name="csrf" value="${csrfToken}"><button type="submit">Return to ${clientName}</button></form>`;

export interface DeniedPageOptions extends ReturnToApp {
  /** The account the identity provider named (its verified email), if it named one. */
  account: string | undefined;
  /** The server's name for a person, e.g. its host. */
  serverName: string;
}

/** A sign-in refused by the allowlist: names the refused account and whom to ask. */
export function deniedPage(o: DeniedPageOptions): string {
  const title = `This account cannot use ${o.serverName}`;
  const who = o.account === undefined
    ? html`<p>Your identity provider signed you in but did not confirm an email address for this account, and ${o.serverName} admits people by their verified email address.</p>
<p>Confirm your email address with your identity provider, or ask the person who runs ${o.serverName} to add an account of yours that has one.</p>`
    : html`<p>You signed in as <strong>${o.account}</strong>, which is not on the list of people allowed to use ${o.serverName}.</p>
<p>Ask the person who runs ${o.serverName} to add you (your address, or your email domain), then connect again. If you have another account that is allowed, sign out of ${o.account} at your identity provider first.</p>`;
  return page(title, html`<h1>${title}</h1>`, who, html`<p class="note">Returning tells ${o.clientName} that access was denied.</p>`, returnButton(o));
}

export interface UpstreamFailedPageOptions extends ReturnToApp {
  /** The server's name for a person, e.g. its host. */
  serverName: string;
  /** Restarts the sign-in with the identity provider (same origin). */
  retryUrl: string;
  /** Whether the identity provider could not be reached (else it answered but did not confirm the sign-in). */
  unreachable: boolean;
  /** The technical reason, for the person to pass on to the operator. */
  detail: string;
}

/** The identity provider could not be reached, or did not confirm the sign-in: retry, or return to the app. */
export function upstreamFailedPage(o: UpstreamFailedPageOptions): string {
  const title = o.unreachable ? 'Your sign-in provider cannot be reached' : 'Your sign-in provider did not confirm the sign-in';
  const what = o.unreachable
    ? html`<p>${o.serverName} signs you in through your team's identity provider, and it did not answer just now. This is usually temporary.</p>`
    : html`<p>${o.serverName} signs you in through your team's identity provider, and it did not confirm this sign-in (the sign-in may have taken too long, or been used twice).</p>`;
  return page(
    title,
    html`<h1>${title}</h1>`,
    what,
    html`<p><a class="button primary" href="${o.retryUrl}">Try again</a></p>`,
    html`<p class="note">Or give up for now: returning tells ${o.clientName} that sign-in is ${o.unreachable ? 'temporarily unavailable' : 'not possible'}. If this keeps happening, tell the person who runs ${o.serverName}.</p>`,
    returnButton(o),
    html`<p class="note">Details: ${o.detail}</p>`,
  );
}

/** What oidc-provider reports when it cannot send the person back to the app (its `renderError` output). */
export interface ProviderErrorOut {
  error?: unknown;
  error_description?: unknown;
}

/**
 * The page for an error oidc-provider cannot return to the app (an unknown client, a redirect URI it
 * did not register, an expired sign-in): said in a person's words, with what to do.
 */
export function providerErrorPage(out: ProviderErrorOut, serverName: string): string {
  const error = typeof out.error === 'string' ? out.error : 'server_error';
  // oidc-provider describes every server_error as "oops! something went wrong": no help to anyone.
  const description = typeof out.error_description === 'string' && error !== 'server_error' ? out.error_description : '';
  const reconnect = html`<p>Remove the connector (or server) for ${serverName} in your app and add it again: the app registers afresh and the sign-in starts over.</p>`;
  let title: string;
  let body: Html[];
  if (error === 'invalid_client') {
    title = `This app is not registered with ${serverName}`;
    body = [html`<p>The app asked to sign you in with a registration (client ID) that this server does not know. Registrations that are never used expire after a day, and the person who runs ${serverName} may have removed it.</p>`, reconnect];
  } else if (error === 'invalid_redirect_uri' || error === 'redirect_uri_mismatch') {
    title = 'The app asked to send you to an address it did not register';
    body = [html`<p>For your safety the sign-in stops here: the return address in the request is not one the app registered with ${serverName}.</p>`, reconnect];
  } else if (error === 'session_not_found' || /expired/i.test(description)) {
    title = 'This sign-in has expired';
    body = [html`<p>Go back to the app you were connecting and start the connection again.</p>`];
  } else {
    title = 'The sign-in could not go on';
    body = [html`<p>${serverName} could not complete the request the app made to sign you in. Go back to the app and connect again. If it happens again:</p>`, reconnect];
  }
  return page(title, html`<h1>${title}</h1>`, ...body, html`<p class="note">Details: <code>${error}</code>${description === '' ? '' : `: ${description}`}</p>`);
}
