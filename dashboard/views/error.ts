/** Error pages. */
import { html } from './html';
import { publicPage } from './layout';

/** A plain error page with a way back. */
export function errorPage(status: number, message: string, signedIn: boolean): string {
  return publicPage(
    status === 404 ? 'Not found' : 'Something is not right',
    html`<p class="alert error" role="alert">${message}</p>
      <p><a href="${signedIn ? '/' : '/signin'}">${signedIn ? 'Back to the overview' : 'Sign in'}</a></p>`,
  );
}
