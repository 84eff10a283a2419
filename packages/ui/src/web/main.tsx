/** Entry point: adopt a credential from the URL fragment, then render the page. */
import { render } from 'preact';
import { App } from './app.js';
import { adoptFragmentCredential } from './auth.js';
import './styles.css';

adoptFragmentCredential(location, history, sessionStorage);
addEventListener('hashchange', () => adoptFragmentCredential(location, history, sessionStorage));
render(<App />, document.getElementById('app')!);
