//! Outbound reads are bounded, against hostile servers on loopback: a server that streams
//! without end is cut at the cap (GitHub's notifications poll, a calendar URL), and one that
//! accepts and never answers runs into the timeout.
#![cfg(feature = "senses")]

use std::time::Duration;

use cn_autonomy::senses::calendar::{client, CalendarSource};
use cn_autonomy::senses::github::NotificationPoller;
use cn_autonomy::senses::SenseError;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server answering every connection with 200 and an endless body (no length: until
/// close); returns its address and a counter of the bytes it managed to send.
async fn flood_server() -> (std::net::SocketAddr, std::sync::Arc<std::sync::atomic::AtomicU64>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = sent.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let counter = counter.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = sock.read(&mut buf).await;
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n[";
                if sock.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = vec![b' '; 64 * 1024];
                while sock.write_all(&chunk).await.is_ok() {
                    counter.fetch_add(chunk.len() as u64, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    (addr, sent)
}

#[test]
fn an_endless_answer_is_cut_at_the_cap() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let (addr, sent) = flood_server().await;
        let mut poller = NotificationPoller::new(&format!("http://{addr}"), "t".into()).unwrap();
        let err = poller.poll().await.unwrap_err();
        assert!(matches!(err, SenseError::TooLarge { .. }), "{err}");
        let calendar = CalendarSource::Url(format!("http://{addr}/cal.ics"));
        let err = calendar.read(&client(Duration::from_secs(30)).unwrap()).await.unwrap_err();
        assert!(matches!(err, SenseError::TooLarge { .. }), "{err}");
        assert!(err.to_string().contains("larger than"), "{err}");
        // The reader stopped: the server could not push much beyond the cap (plus buffers).
        let cap = cn_autonomy::senses::BODY_MAX as u64;
        assert!(sent.load(std::sync::atomic::Ordering::Relaxed) < 2 * cap + (16 << 20));
    });
}

#[test]
fn a_calendar_server_that_never_answers_times_out() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // Accept and hold the connection, never answering.
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((sock, _)) = listener.accept().await {
                held.push(sock);
            }
        });
        let calendar = CalendarSource::Url(format!("http://{addr}/cal.ics"));
        let err = calendar.read(&client(Duration::from_millis(300)).unwrap()).await.unwrap_err();
        assert!(matches!(err, SenseError::Http { .. }), "{err}");
    });
}
