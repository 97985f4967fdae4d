/**
 * The fleet console (issue 32): sign in with an API key that has the `fleet` scope, then the
 * branches, one branch, the rollouts and one rollout, each reading the public API by itself.
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem, call, explain, forgetKey, savedKey, saveKey } from './api.js';
import { BranchView } from './branch.js';
import { BranchesView } from './branches.js';
import { lang, t } from './i18n.js';
import { href, useRoute, type Route } from './route.js';
import { RolloutView } from './rollout.js';
import { RolloutsView } from './rollouts.js';
import { formText } from './parts.js';
import { SessionContext } from './session.js';
import './style.css';
import './tables.css';

function App() {
  const [key, setKey] = useState(savedKey);
  const [notice, setNotice] = useState<string>();
  if (!key) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(k) => {
          saveKey(k);
          setNotice(undefined);
          setKey(k);
        }}
      />
    );
  }
  const signOut = (message?: string) => {
    forgetKey();
    setNotice(message);
    setKey(null);
  };
  return (
    <SessionContext.Provider value={{ key, signOut }}>
      <Shell onSignOut={() => signOut()} />
    </SessionContext.Provider>
  );
}

function SignIn({ notice, onSignedIn }: { notice: string | undefined; onSignedIn: (key: string) => void }) {
  const [problem, setProblem] = useState(notice);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = `${t.signIn.heading} · ${t.title}`;
  }, []);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const key = formText(event.currentTarget as HTMLFormElement, 'key');
    if (!key) return;
    setBusy(true);
    try {
      await call(key, 'GET', '/sucursales', { query: { pageSize: 1 } });
      onSignedIn(key);
    } catch (error) {
      const code = error instanceof ApiProblem ? error.code : undefined;
      setProblem(code === 'unauthorized' ? t.signIn.wrongKey : code === 'scope_missing' ? t.signIn.noFleetScope : explain(error));
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>{t.title}</h1>
      {/* method=post: were the script ever not to run, a key would still not end up in a URL. */}
      <form method="post" onSubmit={(e) => void submit(e)}>
        <h2>{t.signIn.heading}</h2>
        <label>
          {t.signIn.keyLabel}
          <input name="key" type="password" required autoComplete="off" spellcheck={false} autoFocus />
        </label>
        <p class="muted">{t.signIn.hint}</p>
        {problem && (
          <p class="failing" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {t.signIn.submit}
        </button>
      </form>
    </main>
  );
}

const titles: Record<Route['view'], string> = {
  branches: t.nav.branches,
  branch: t.nav.branches,
  rollouts: t.nav.rollouts,
  rollout: t.nav.rollouts,
};

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    document.title = `${titles[route.view]} · ${t.title}`;
    // A new view takes the keyboard focus to its heading, as a new page would; not the first one.
    if (!first.current) main.current?.querySelector<HTMLElement>('h1')?.focus();
    first.current = false;
  }, [route]);
  const section = route.view === 'rollouts' || route.view === 'rollout' ? 'rollouts' : 'branches';
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), main.current?.querySelector<HTMLElement>('h1')?.focus())}>
        {t.skipToContent}
      </a>
      <header class="top">
        <span class="brand">{t.title}</span>
        <nav aria-label={t.nav.label}>
          <a href={href.branches} aria-current={section === 'branches' ? 'page' : undefined}>
            {t.nav.branches}
          </a>
          <a href={href.rollouts} aria-current={section === 'rollouts' ? 'page' : undefined}>
            {t.nav.rollouts}
          </a>
        </nav>
        <button type="button" class="sign-out" onClick={onSignOut}>
          {t.nav.signOut}
        </button>
      </header>
      <main id="main" ref={main}>
        {route.view === 'branches' && <BranchesView />}
        {route.view === 'branch' && <BranchView key={route.licenseKey} licenseKey={route.licenseKey} />}
        {route.view === 'rollouts' && <RolloutsView />}
        {route.view === 'rollout' && <RolloutView key={route.id} id={route.id} />}
      </main>
    </>
  );
}

document.documentElement.lang = lang;
render(<App />, document.body);
