use std::error::Error;
use std::sync::{Arc, Mutex};

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

pub struct Counter {
    inner: Arc<Mutex<u64>>,
}

impl Counter {
    pub fn new() -> Self {
        Self { inner: Arc::new(Mutex::new(0)) }
    }

    pub fn bump(&self) -> Result<u64> {
        let mut guard = self.inner.lock().map_err(|e| e.to_string())?;
        *guard += 1;
        Ok(*guard)
    }
}

pub async fn fetch_all(urls: Vec<String>) -> Result<Vec<usize>> {
    let mut sizes = Vec::with_capacity(urls.len());
    for url in &urls {
        if let Some(rest) = url.strip_prefix("https://") {
            sizes.push(rest.len());
        } else {
            return Err(format!("bad url: {url}").into());
        }
    }
    Ok(sizes)
}
