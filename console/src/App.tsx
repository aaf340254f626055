import { useState } from 'react';
import { Navigate, NavLink, Route, Routes, useLocation } from 'react-router-dom';
import { useSession } from './session';
import { fmtGrants, enumLabel } from './format';
import Login from './pages/Login';
import Dashboard from './pages/Dashboard';
import Jobs from './pages/Jobs';
import JobForm from './pages/JobForm';
import ScriptVersions from './pages/ScriptVersions';
import Runs from './pages/Runs';
import RunDetail from './pages/RunDetail';
import Workflows from './pages/Workflows';
import WorkflowDetail from './pages/WorkflowDetail';
import WorkflowRun from './pages/WorkflowRun';
import Calendars from './pages/Calendars';
import AlarmChannels from './pages/AlarmChannels';
import Pools from './pages/Pools';
import PoolQueue from './pages/PoolQueue';
import Executors from './pages/Executors';
import Access from './pages/Access';
import Audit from './pages/Audit';

export default function App() {
  const { token, who, isAdmin, logout } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  if (!token) {
    return location.pathname === '/login' ? <Login /> : <Navigate to="/login" replace state={{ from: location }} />;
  }
  const links: [string, string][] = [
    ['/', 'Dashboard'],
    ['/jobs', 'Jobs'],
    ['/workflows', 'Workflows'],
    ['/calendars', 'Calendars'],
    ['/alarm-channels', 'Alarm channels'],
    ['/pools', 'Pools'],
    ['/runs', 'Runs'],
    ['/executors', 'Executors'],
  ];
  if (isAdmin) links.push(['/access', 'Access'], ['/audit', 'Audit']);
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">gnomon</span>
        <button
          type="button"
          className="menu-toggle secondary"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? 'open' : ''}>
          {links.map(([to, label]) => (
            <NavLink key={to} to={to} end={to === '/'} onClick={() => setMenuOpen(false)}>
              {label}
            </NavLink>
          ))}
        </nav>
        <span className="who" aria-label="Signed in as">
          {who ? `${who.user || 'service token'} · ${enumLabel(who.role, 'ROLE_')}${who.role !== 'ROLE_ADMIN' ? ` · ${fmtGrants(who.grants)}` : ''}` : '…'}
        </span>
        <button type="button" className="secondary" onClick={logout}>
          Log out
        </button>
      </header>
      <main>
        <Routes>
          <Route path="/" element={<Dashboard />} />
          <Route path="/jobs" element={<Jobs />} />
          <Route path="/jobs/new" element={<JobForm />} />
          <Route path="/jobs/:id/edit" element={<JobForm />} />
          <Route path="/jobs/:id/script" element={<ScriptVersions />} />
          <Route path="/workflows" element={<Workflows />} />
          <Route path="/workflows/:id" element={<WorkflowDetail />} />
          <Route path="/workflow-runs/:id" element={<WorkflowRun />} />
          <Route path="/calendars" element={<Calendars />} />
          <Route path="/alarm-channels" element={<AlarmChannels />} />
          <Route path="/pools" element={<Pools />} />
          <Route path="/pools/:name" element={<PoolQueue />} />
          <Route path="/runs" element={<Runs />} />
          <Route path="/runs/:id" element={<RunDetail />} />
          <Route path="/executors" element={<Executors />} />
          {isAdmin && <Route path="/access" element={<Access />} />}
          {isAdmin && <Route path="/audit" element={<Audit />} />}
          <Route path="/login" element={<Navigate to="/" replace />} />
          <Route path="*" element={<p>Nothing here. <NavLink to="/">Dashboard</NavLink></p>} />
        </Routes>
      </main>
    </div>
  );
}
