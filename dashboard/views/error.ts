/** Error pages. */
import type { Brand } from '../brand';
import { html } from './html';
import { publicPage } from './layout';

/** A plain error page with a way back. */
export function errorPage(brand: Brand, status: number, message: string, signedIn: boolean): string {
  return publicPage(
    brand,
    status === 404 ? 'Not found' : 'Something is not right',
    html`<p class="alert error" role="alert">${message}</p>
      <p><a href="${signedIn ? '/' : '/signin'}">${signedIn ? 'Back to the overview' : 'Sign in'}</a></p>`,
  );
}
