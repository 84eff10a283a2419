/** Entry point: adopt a credential from the URL fragment at load (only then), then render the page. */
import { render } from 'preact';
import { App } from './app.js';
import { adoptFragmentCredential, dropFragmentCredential } from './auth.js';
import './styles.css';

adoptFragmentCredential(location, history, sessionStorage);
addEventListener('hashchange', () => void dropFragmentCredential(location, history));
render(<App />, document.getElementById('app')!);
