/** The accounts service's input refusals as admin problems (400 naming the field). */
import { InputError } from '../accounts/errors';
import { invalid } from './problem';

/** Run `fn`; an InputError becomes a 400 invalid_parameter naming its field. */
export function asProblem<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof InputError) throw invalid(err.field, err.detail);
    throw err;
  }
}
