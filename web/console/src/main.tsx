import "@mantine/core/styles.css";
import "./app/shell.css";
import { createRoot } from "react-dom/client";
import { App } from "./app/App";
import { applyColorScheme } from "./app/colorScheme";

// The system's light or dark, set before the first render (no inline script:
// the CSP allows only the app's own files), so a dark system never sees a
// light page first.
applyColorScheme();

createRoot(document.getElementById("root")!).render(<App />);
